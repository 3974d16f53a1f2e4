package query

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"golang.org/x/sync/errgroup"

	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/internal/core"
	"github.com/tablekit/tablekit/table"
)

// item has a property of every EDM type.
type item struct {
	PartitionKey string
	RowKey       string
	N            int32
	Big          int64
	F            float64
	S            string
	B            bool
	When         time.Time
	ID           table.GUID
	Bin          []byte
	table.Meta
}

var baseTime = time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)

func makeItem(p, r int) item {
	var id table.GUID
	binary.BigEndian.PutUint32(id[:], uint32(p))
	binary.BigEndian.PutUint32(id[12:], uint32(r))
	return item{
		PartitionKey: fmt.Sprintf("p%02d", p),
		RowKey:       fmt.Sprintf("r%04d", r),
		N:            int32(r),
		Big:          int64(p)<<40 | int64(r),
		F:            float64(r) + 0.5,
		S:            fmt.Sprintf("s%d", r%7),
		B:            r%2 == 0,
		When:         baseTime.Add(time.Duration(r) * time.Second),
		ID:           id,
		Bin:          []byte{byte(p), byte(r)},
	}
}

// newService connects to Azurite (or endpoint, e.g. a proxy in front of
// it) with tablekit's options; o may be nil.
func newService(t testing.TB, endpoint string, o *table.Options) *table.Service {
	t.Helper()
	env := *testenv.Azurite(t)
	if endpoint != "" {
		env.Endpoint = endpoint
	}
	return env.NewService(t, o)
}

// load upserts the entities in transactions of up to 100, one partition
// each, four at a time: the fast way to fill a table.
func load[T any](t testing.TB, tbl *table.Table[T], entities []T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	byPK := map[string][]aztables.TransactionAction{}
	var order []string
	for i := range entities {
		pk, _ := (*core.Table)(tbl).Plan().Keys(reflect.ValueOf(&entities[i]).Elem())
		body, err := tbl.Marshal(entities[i])
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := byPK[pk]; !ok {
			order = append(order, pk)
		}
		byPK[pk] = append(byPK[pk], aztables.TransactionAction{ActionType: aztables.TransactionTypeInsertReplace, Entity: body})
	}
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(4)
	for _, pk := range order {
		acts := byPK[pk]
		for len(acts) > 0 {
			n := min(100, len(acts))
			chunk := acts[:n]
			acts = acts[n:]
			g.Go(func() error {
				_, err := tbl.Client().SubmitTransaction(ctx, chunk, nil)
				return err
			})
		}
	}
	if err := g.Wait(); err != nil {
		t.Fatalf("load: %v", err)
	}
}

func keysOf(items []item) []string {
	out := make([]string, len(items))
	for i, e := range items {
		out[i] = e.PartitionKey + "/" + e.RowKey
	}
	return out
}

// sameSequence reports the first difference between two key lists.
func sameSequence(t *testing.T, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("got %d entities, want %d", len(got), len(want))
	}
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			t.Errorf("entity %d: got %s, want %s", i, got[i], want[i])
			return
		}
	}
}

// sameSet checks that got holds every key of want exactly once.
func sameSet(t *testing.T, got, want []string) {
	t.Helper()
	seen := make(map[string]int, len(got))
	for _, k := range got {
		seen[k]++
	}
	for k, n := range seen {
		if n > 1 {
			t.Errorf("%s returned %d times", k, n)
		}
	}
	for _, k := range want {
		if seen[k] == 0 {
			t.Errorf("%s missing", k)
		}
		delete(seen, k)
	}
	for k := range seen {
		t.Errorf("%s returned but not expected", k)
	}
}

// pager is a transport that makes Azurite's pages look like the service's
// worst case: with empty, every first request at a position is answered
// with an empty page and a continuation to the same position in another
// spelling (a request
// with no position gets an empty page continuing at PartitionKey " ",
// before every key); with partitionCut, a page is cut at the first entity of
// its second partition and continues with a NextPartitionKey alone.
// Azurite's continuation values are base64 of the keys.
type pager struct {
	next         *http.Client
	empty        bool
	partitionCut bool
	mu           sync.Mutex
	seen         map[string]bool
	emptyPages   int // empty pages sent
	cutPages     int // pages cut at a partition boundary
}

func newPager(empty, partitionCut bool) *pager {
	return &pager{next: testenv.TunedClient(), empty: empty, partitionCut: partitionCut, seen: map[string]bool{}}
}

const (
	hdrNPK = "x-ms-continuation-NextPartitionKey"
	hdrNRK = "x-ms-continuation-NextRowKey"
)

func (p *pager) Do(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodGet || !strings.HasSuffix(req.URL.Path, "()") {
		return p.next.Do(req)
	}
	q := req.URL.Query()
	// Azurite's continuation values are base64, and it ignores trailing
	// padding: "X" and "X=" are one position under two spellings.
	pos := strings.TrimRight(q.Get("NextPartitionKey"), "=") + "|" + strings.TrimRight(q.Get("NextRowKey"), "=") + "|" + q.Get("$filter")
	if p.empty {
		p.mu.Lock()
		first := !p.seen[pos]
		p.seen[pos] = true
		if first {
			p.emptyPages++
		}
		p.mu.Unlock()
		if first {
			h := http.Header{"Content-Type": {"application/json;odata=minimalmetadata"}}
			if npk := q.Get("NextPartitionKey"); npk != "" {
				// The same position spelled differently, as a service's
				// opaque tokens may be: identical tokens are refused.
				h.Set(hdrNPK, npk+"=")
				if nrk := q.Get("NextRowKey"); nrk != "" {
					h.Set(hdrNRK, nrk)
				}
			} else {
				h.Set(hdrNPK, base64.StdEncoding.EncodeToString([]byte(" ")))
			}
			body := []byte(`{"value":[]}`)
			return &http.Response{StatusCode: http.StatusOK, Status: "200 OK", Header: h, Body: io.NopCloser(bytes.NewReader(body)),
				ContentLength: int64(len(body)), Request: req, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1}, nil
		}
	}
	resp, err := p.next.Do(req)
	if err != nil || !p.partitionCut || resp.StatusCode != http.StatusOK {
		return resp, err
	}
	raw, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	var page map[string]json.RawMessage
	var values []json.RawMessage
	if err := json.Unmarshal(raw, &page); err == nil {
		_ = json.Unmarshal(page["value"], &values)
	}
	for i, v := range values {
		var k struct{ PartitionKey string }
		_ = json.Unmarshal(v, &k)
		var k0 struct{ PartitionKey string }
		_ = json.Unmarshal(values[0], &k0)
		if i > 0 && k.PartitionKey != k0.PartitionKey {
			page["value"], _ = json.Marshal(values[:i])
			raw, _ = json.Marshal(page)
			resp.Header.Set(hdrNPK, base64.StdEncoding.EncodeToString([]byte(k.PartitionKey)))
			resp.Header.Del(hdrNRK)
			p.mu.Lock()
			p.cutPages++
			p.mu.Unlock()
			break
		}
	}
	resp.Body = io.NopCloser(bytes.NewReader(raw))
	resp.ContentLength = int64(len(raw))
	resp.Header.Set("Content-Length", fmt.Sprint(len(raw)))
	return resp, nil
}

// brokenContinuation is a transport that answers every query with an empty
// page whose continuation cannot be followed: the request's own (repeat),
// or a NextRowKey alone.
type brokenContinuation struct {
	repeat   bool
	mu       sync.Mutex
	requests int
}

func (b *brokenContinuation) Do(req *http.Request) (*http.Response, error) {
	b.mu.Lock()
	b.requests++
	b.mu.Unlock()
	q := req.URL.Query()
	h := http.Header{"Content-Type": {"application/json;odata=minimalmetadata"}}
	if b.repeat {
		h.Set(hdrNPK, q.Get("NextPartitionKey"))
		h.Set(hdrNRK, q.Get("NextRowKey"))
		if q.Get("NextPartitionKey") == "" {
			h.Set(hdrNPK, base64.StdEncoding.EncodeToString([]byte("p")))
		}
	} else {
		h.Set(hdrNRK, base64.StdEncoding.EncodeToString([]byte("r")))
	}
	body := []byte(`{"value":[]}`)
	return &http.Response{StatusCode: http.StatusOK, Status: "200 OK", Header: h, Body: io.NopCloser(bytes.NewReader(body)),
		ContentLength: int64(len(body)), Request: req, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1}, nil
}

// checkNoGoroutines fails the test if a goroutine is still running code of
// the package other than tests: after an iterator returns there must be
// none.
func checkNoGoroutines(t *testing.T) {
	t.Helper()
	buf := make([]byte, 4<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var stacks []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "tablekit/query.(*parallelRun[") || strings.Contains(g, "tablekit/query.(*plan[") {
			stacks = append(stacks, g)
		}
	}
	if len(stacks) > 0 {
		t.Errorf("%d goroutines of the run still alive:\n%s", len(stacks), strings.Join(stacks, "\n\n"))
	}
}
