package workload

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	azruntime "github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit/devtools/azurite"
	"github.com/tablekit/tablekit/query"
	"github.com/tablekit/tablekit/table"
)

// Bench is one client-overhead benchmark: F is a benchmark function for
// testing.Benchmark or b.Run, and one of its operations handles PerOp
// entities.
type Bench struct {
	Name  string // "write/typed", "decode/edm", ...
	Desc  string // what the operation does, for the report
	PerOp int    // entities per operation
	F     func(b *testing.B)
}

// PageSize is the number of entities in the decoded page: the service's
// maximum per response.
const PageSize = 1000

// Benchmarks lists the client-overhead benchmarks. Every write sends the same
// entity through aztables to Service and gets the same answer (204, no echo)
// unless its name says "echo"; every decode reads the same page, as aztables'
// pager hands it to the caller.
func Benchmarks() []Bench {
	return []Bench{
		{"write/typed", "tablekit `Table.Add`: typed encode + validation + submit", 1, WriteTyped},
		{"write/dynamic", "tablekit `Table.Add` of a `table.Entity`: dynamic encode + validation + submit", 1, WriteDynamic},
		{"write/prebuilt", "aztables `AddEntity` with pre-built JSON bytes", 1, WritePrebuilt},
		{"write/floor", "the floor: the same insert, pre-built, through azcore's own pipeline alone (no signing, no retry)", 1, WriteFloor},
		{"write/map", "hand-written: map with `@odata.type` annotations + encoding/json + `AddEntity`", 1, WriteMap},
		{"write/edm", "hand-written: `aztables.EDMEntity` + encoding/json + `AddEntity`", 1, WriteEDM},
		{"write/map-echo", "hand-written map path with aztables defaults: the service echoes the entity (201)", 1, WriteMapEcho},
		{"decode/typed", "tablekit `Table.Unmarshal` of each entity of a 1,000-entity page", PageSize, DecodeTyped},
		{"decode/dynamic", "tablekit `Table.Unmarshal` into `table.Entity` of each entity of the page", PageSize, DecodeDynamic},
		{"decode/edm", "`json.Unmarshal` into `aztables.EDMEntity` of each entity of the page", PageSize, DecodeEDM},
		{"decode/map", "`json.Unmarshal` into `map[string]any` of each entity of the page", PageSize, DecodeMap},
		{"decode/raw", "tablekit `Table.Unmarshal` into `table.RawEntity` of each entity of the page (export's read)", PageSize, DecodeRaw},
		{"encode/typed", "tablekit `Table.Marshal` of each item of the page (a typed write's encoding)", PageSize, EncodeTyped},
		{"encode/raw", "tablekit `Table.Marshal` of each entity of the page as a `table.RawEntity` (import's write: each value checked as it is copied)", PageSize, EncodeRaw},
		{"page/pager", "aztables pager: `NextPage` of a 1,000-entity page, no decoding by the caller", PageSize, PagePager},
		{"page/pager-struct", "aztables pager + `json.Unmarshal` of each entity into a struct (the plain scans' path)", PageSize, PagePagerStruct},
		{"page/query", "tablekit `query.New(t).All` over the page (typed)", PageSize, PageQuery},
		{"tx/typed", "tablekit `batch.Transaction.Submit` of 100 typed upserts", TxOps, TxTyped},
		{"tx/prebuilt", "hand-written: aztables `SubmitTransaction` of 100 upserts of pre-built JSON bytes", TxOps, TxPrebuilt},
	}
}

const benchTable = "bench"

func endpoint() string { return "http://127.0.0.1:10002/" + azurite.Account }

// PlainClient is an aztables client with default options except the
// transport: what plain aztables code uses.
func PlainClient(tr policy.Transporter) *aztables.Client {
	cred, err := aztables.NewSharedKeyCredential(azurite.Account, azurite.Key)
	if err != nil {
		panic(err)
	}
	opts := &aztables.ClientOptions{}
	opts.Transport = tr
	c, err := aztables.NewClientWithSharedKey(endpoint()+"/"+benchTable, cred, opts)
	if err != nil {
		panic(err)
	}
	return c
}

// TypedTable is a tablekit table of Item with default options except the
// transport.
func TypedTable(tr policy.Transporter) *table.Table[Item] {
	svc, err := table.NewServiceWithSharedKey(endpoint(), azurite.Account, azurite.Key, &table.Options{Transport: tr})
	if err != nil {
		panic(err)
	}
	t, err := table.New[Item](svc, benchTable)
	if err != nil {
		panic(err)
	}
	return t
}

// noEcho asks for no echo, as tablekit does, so that every write path gets
// the same answer and only the client's work differs.
func noEcho() context.Context {
	return policy.WithHTTPHeader(context.Background(), http.Header{"Prefer": {"return-no-content"}})
}

var (
	fixtureOnce sync.Once
	items       []Item
	prebuilt    [][]byte
	page        [][]byte
)

// fixture returns PageSize items, their JSON as tablekit encodes it, and the
// page's entities as aztables' pager returns them.
func fixture() ([]Item, [][]byte, [][]byte) {
	fixtureOnce.Do(func() {
		// A page comes in key order, as the service returns every query.
		items = Items(0, PageSize)
		slices.SortFunc(items, func(a, b Item) int {
			return cmp.Or(cmp.Compare(a.PartitionKey, b.PartitionKey), cmp.Compare(a.RowKey, b.RowKey))
		})
		t := TypedTable(&Service{})
		for i := range items {
			b, err := t.Marshal(items[i])
			if err != nil {
				panic(err)
			}
			prebuilt = append(prebuilt, b)
		}
		var err error
		page, err = PageEntities(items)
		if err != nil {
			panic(err)
		}
	})
	return items, prebuilt, page
}

// PageBody is the service's answer to a query that returns items: odata
// metadata, then each entity with its ETag, Timestamp and EDM annotations.
func PageBody(its []Item) []byte {
	t := TypedTable(&Service{})
	b := []byte(`{"odata.metadata":"http://127.0.0.1:10002/devstoreaccount1/$metadata#bench","value":[`)
	for i := range its {
		if i > 0 {
			b = append(b, ',')
		}
		e, err := t.Marshal(its[i])
		if err != nil {
			panic(err)
		}
		b = append(b, `{"odata.etag":`...)
		b = strconv.AppendQuote(b, etag)
		b = append(b, `,"Timestamp":"`+timestamp+`",`...)
		b = append(b, e[1:]...)
	}
	return append(b, "]}"...)
}

// PageEntities returns the entities of PageBody(its) as an aztables pager
// hands them to its caller (each one re-encoded by aztables).
func PageEntities(its []Item) ([][]byte, error) {
	c := PlainClient(&Service{Page: PageBody(its)})
	p := c.NewListEntitiesPager(nil)
	resp, err := p.NextPage(context.Background())
	if err != nil {
		return nil, err
	}
	if len(resp.Entities) != len(its) {
		return nil, fmt.Errorf("workload: page has %d entities, want %d", len(resp.Entities), len(its))
	}
	return resp.Entities, nil
}

// WriteTyped inserts Items through tablekit's Table.Add.
func WriteTyped(b *testing.B) {
	its, _, _ := fixture()
	t := TypedTable(&Service{})
	ctx := context.Background()
	run(b, 1, func(i int) error {
		_, err := t.Add(ctx, its[i%len(its)])
		return err
	})
}

// WritePrebuilt inserts already encoded entities with aztables' AddEntity.
func WritePrebuilt(b *testing.B) {
	_, pre, _ := fixture()
	c := PlainClient(&Service{})
	ctx := noEcho()
	run(b, 1, func(i int) error {
		_, err := c.AddEntity(ctx, pre[i%len(pre)], nil)
		return err
	})
}

// WriteFloor sends the insert tablekit sends (pre-built bytes, the same
// headers) through a pipeline of azcore's own policies alone
// (runtime.NewPipeline, its retry off, no credential, nothing of
// tablekit's or aztables') to the same in-process service: what an insert
// costs any client built on azcore, below which neither side goes.
func WriteFloor(b *testing.B) {
	_, pre, _ := fixture()
	pl := azruntime.NewPipeline("floor", "v0.0.0", azruntime.PipelineOptions{},
		&policy.ClientOptions{Transport: &Service{}, Retry: policy.RetryOptions{MaxRetries: -1}})
	u := endpoint() + "/" + benchTable
	ctx := context.Background()
	run(b, 1, func(i int) error {
		req, err := azruntime.NewRequest(ctx, http.MethodPost, u)
		if err != nil {
			return err
		}
		h := req.Raw().Header
		h["x-ms-version"] = []string{"2019-02-02"}
		h["DataServiceVersion"] = []string{"3.0"}
		h["Accept"] = []string{"application/json;odata=minimalmetadata"}
		h["Prefer"] = []string{"return-no-content"}
		if err := req.SetBody(streaming.NopCloser(bytes.NewReader(pre[i%len(pre)])), "application/json"); err != nil {
			return err
		}
		resp, err := pl.Do(req)
		if err != nil {
			return err
		}
		if resp.StatusCode != http.StatusNoContent {
			return fmt.Errorf("floor insert: status %d", resp.StatusCode)
		}
		return nil
	})
}

// WriteMap encodes each Item as a map with EDM annotations and
// encoding/json, and inserts it with AddEntity.
func WriteMap(b *testing.B) { writeMap(b, noEcho()) }

// WriteMapEcho is WriteMap with aztables' defaults: the service echoes
// every entity back and aztables decodes the echo.
func WriteMapEcho(b *testing.B) { writeMap(b, context.Background()) }

func writeMap(b *testing.B, ctx context.Context) {
	its, _, _ := fixture()
	c := PlainClient(&Service{})
	run(b, 1, func(i int) error {
		body, err := MarshalMap(&its[i%len(its)])
		if err != nil {
			return err
		}
		_, err = c.AddEntity(ctx, body, nil)
		return err
	})
}

// WriteEDM encodes each Item as an aztables.EDMEntity with encoding/json and
// inserts it with AddEntity.
func WriteEDM(b *testing.B) {
	its, _, _ := fixture()
	c := PlainClient(&Service{})
	ctx := noEcho()
	run(b, 1, func(i int) error {
		body, err := MarshalEDM(&its[i%len(its)])
		if err != nil {
			return err
		}
		_, err = c.AddEntity(ctx, body, nil)
		return err
	})
}

// Sink keeps decoded values alive so the compiler cannot drop the work.
var Sink any

// DecodeTyped decodes a page's entities into Items with Table.Unmarshal.
func DecodeTyped(b *testing.B) {
	_, _, pg := fixture()
	t := TypedTable(&Service{})
	run(b, len(pg), func(int) error {
		for _, e := range pg {
			it, err := t.Unmarshal(e)
			if err != nil {
				return err
			}
			Sink = it.RowKey
		}
		return nil
	})
}

// DecodeEDM decodes a page's entities with json.Unmarshal into
// aztables.EDMEntity, the way aztables' documentation reads entities.
func DecodeEDM(b *testing.B) {
	_, _, pg := fixture()
	run(b, len(pg), func(int) error {
		for _, e := range pg {
			var v aztables.EDMEntity
			if err := json.Unmarshal(e, &v); err != nil {
				return err
			}
			Sink = v.RowKey
		}
		return nil
	})
}

// DecodeMap decodes a page's entities with json.Unmarshal into a
// map[string]any.
func DecodeMap(b *testing.B) {
	_, _, pg := fixture()
	run(b, len(pg), func(int) error {
		for _, e := range pg {
			var v map[string]any
			if err := json.Unmarshal(e, &v); err != nil {
				return err
			}
			Sink = v
		}
		return nil
	})
}

// PagePager fetches a 1,000-entity page through an aztables pager: the
// response is decoded into maps and each entity re-encoded to JSON before
// the caller sees it.
func PagePager(b *testing.B) { pagePager(b, nil) }

// PagePagerStruct is PagePager plus json.Unmarshal of each entity into a
// struct, as the plain scans of devtools/cmd/bench read them.
func PagePagerStruct(b *testing.B) {
	pagePager(b, func(e []byte) error {
		var v PlainItem
		if err := json.Unmarshal(e, &v); err != nil {
			return err
		}
		Sink = v.RowKey
		return nil
	})
}

func pagePager(b *testing.B, decode func([]byte) error) {
	its, _, _ := fixture()
	c := PlainClient(&Service{Page: PageBody(its)})
	ctx := context.Background()
	run(b, len(its), func(int) error {
		resp, err := c.NewListEntitiesPager(nil).NextPage(ctx)
		if err != nil {
			return err
		}
		if len(resp.Entities) != len(its) {
			return fmt.Errorf("%d entities", len(resp.Entities))
		}
		if decode != nil {
			for _, e := range resp.Entities {
				if err := decode(e); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// PageQuery reads the page with tablekit's sequential iterator.
func PageQuery(b *testing.B) {
	its, _, _ := fixture()
	t := TypedTable(&Service{Page: PageBody(its)})
	ctx := context.Background()
	run(b, len(its), func(int) error {
		n := 0
		for it, err := range query.New(t).All(ctx) {
			if err != nil {
				return err
			}
			Sink = it.RowKey
			n++
		}
		if n != len(its) {
			return fmt.Errorf("%d entities", n)
		}
		return nil
	})
}

// PlainItem is how hand-written aztables code reads the entity: a struct
// for encoding/json (Int64 values arrive as strings, hence ",string").
type PlainItem struct {
	PartitionKey string
	RowKey       string
	Timestamp    time.Time
	ETag         string `json:"odata.etag"`
	Customer     string
	Status       string
	Quantity     int32
	Total        float64
	Version      int64 `json:",string"`
	Gift         bool
	Created      time.Time
	Ref          string
	Address      string
	Description  string
}

// CPUMetric is the metric every benchmark reports: process CPU time (user
// and system, all threads, so the garbage collector's work counts) per
// entity. Wall time per operation hides work done on other cores.
const CPUMetric = "cpu-ns/entity"

// run times op b.N times and reports CPUMetric, and for operations on more
// than one entity the wall time per entity too.
func run(b *testing.B, perOp int, op func(i int) error) {
	b.ReportAllocs()
	runtime.GC()
	b.ResetTimer()
	cpu0 := CPUTime()
	for i := 0; i < b.N; i++ {
		if err := op(i); err != nil {
			b.Fatal(err)
		}
	}
	cpu := CPUTime() - cpu0
	b.StopTimer()
	n := float64(b.N) * float64(perOp)
	b.ReportMetric(float64(cpu.Nanoseconds())/n, CPUMetric)
	if perOp > 1 {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/entity")
	}
}
