package query

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/devtools/azurite"
	"github.com/tablekit/tablekit/devtools/faults"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/table"
)

func partitionKeys(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("p%02d", i)
	}
	return out
}

func testParallel(t *testing.T, tbl *table.Table[item], all []item) {
	ctx := context.Background()
	full := keysOf(all)
	sparse := Property("N").Lt(Int32(10))
	sparseWant := keysOf(filterItems(all, func(e item) bool { return e.N < 10 }))

	t.Run("EqualsSequential", func(t *testing.T) {
		parts := PartitionSegments(partitionKeys(bigPartitions)...)
		tests := []struct {
			name    string
			q       Query[item]
			segs    []Segment
			ordered bool
			par     int
			want    []string
		}{
			{"partitions", New(tbl).PageSize(100), parts, false, 8, full},
			{"partitions", New(tbl).PageSize(100), parts, true, 8, full},
			{"partitions", New(tbl).Where(sparse).PageSize(4), parts, true, 1, sparseWant},
			{"ranges", New(tbl).PageSize(250), RangeSegments("p06", "p12", "p18"), true, 4, full},
			{"prefixes", New(tbl).Where(sparse).PageSize(9), PrefixSegments("p0", "p1", "p2"), false, 0, sparseWant},
			{"one segment", New(tbl).Where(sparse), RangeSegments(), true, 0, sparseWant},
			{"base filter", New(tbl).Where(sparse).PageSize(3), parts, false, 8, sparseWant},
			{"base filter", New(tbl).Where(sparse).PageSize(3), parts, true, 8, sparseWant},
			{"base filter ranges", New(tbl).Where(sparse).PageSize(7), RangeSegments("p10", "p20"), true, 2, sparseWant},
		}
		for _, tt := range tests {
			t.Run(fmt.Sprintf("%s/ordered=%v/par=%d", tt.name, tt.ordered, tt.par), func(t *testing.T) {
				c, err := tt.q.Parallel(tt.segs, &ParallelOptions{Ordered: tt.ordered, Parallelism: tt.par})
				if err != nil {
					t.Fatal(err)
				}
				got, err := Collect(c.All(ctx))
				if err != nil {
					t.Fatal(err)
				}
				if tt.ordered {
					sameSequence(t, keysOf(got), tt.want)
				} else {
					sameSet(t, keysOf(got), tt.want)
				}
				if c.Token() != "" {
					t.Errorf("token after the end: %q", c.Token())
				}
				checkNoGoroutines(t)
			})
		}
	})

	t.Run("Limit", func(t *testing.T) {
		segs := PartitionSegments(partitionKeys(bigPartitions)...)
		c, _ := New(tbl).PageSize(100).Limit(1000).Parallel(segs, &ParallelOptions{Ordered: true})
		got, err := Collect(c.All(ctx))
		if err != nil {
			t.Fatal(err)
		}
		sameSequence(t, keysOf(got), full[:1000])
		c, _ = New(tbl).PageSize(100).Limit(777).Parallel(segs, nil)
		got, err = Collect(c.All(ctx))
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 777 {
			t.Errorf("unordered Limit(777): %d entities", len(got))
		}
		sameSet(t, keysOf(got), keysOf(got)) // no duplicates
		rest, _ := New(tbl).PageSize(100).ResumeParallel(c.Token(), segs, nil)
		more, err := Collect(rest.All(ctx))
		if err != nil {
			t.Fatal(err)
		}
		sameSet(t, append(keysOf(got), keysOf(more)...), full)
	})

	t.Run("Resume", func(t *testing.T) {
		p08 := PartitionSegments(partitionKeys(8)...)
		want08 := keysOf(filterItems(all, func(e item) bool { return e.PartitionKey < "p08" }))
		for _, tt := range []struct {
			name     string
			segs     []Segment
			ordered  bool
			pageSize int
			stop     int
			want     []string
		}{
			{"partitions unordered", p08, false, 37, 1, want08},
			{"partitions unordered", p08, false, 37, 1234, want08},
			{"partitions ordered", p08, true, 37, 1, want08},
			{"partitions ordered", p08, true, 37, 1759, want08},
			{"all partitions ordered", PartitionSegments(partitionKeys(bigPartitions)...), true, 100, 2345, full},
			{"ranges ordered", RangeSegments("p05", "p15"), true, 1000, 1001, full},
		} {
			t.Run(fmt.Sprintf("%s/%d", tt.name, tt.stop), func(t *testing.T) {
				q := New(tbl).PageSize(tt.pageSize)
				c, err := q.Parallel(tt.segs, &ParallelOptions{Ordered: tt.ordered})
				if err != nil {
					t.Fatal(err)
				}
				var first []item
				for e, err := range c.All(ctx) {
					if err != nil {
						t.Fatal(err)
					}
					first = append(first, e)
					if len(first) == tt.stop {
						break
					}
				}
				checkNoGoroutines(t)
				tok := c.Token()
				// Resume in "another process": a new query value, other
				// options, only the token carried over.
				c2, err := New(tbl).PageSize(101).ResumeParallel(tok, tt.segs, &ParallelOptions{Ordered: tt.ordered, Parallelism: 3})
				if err != nil {
					t.Fatal(err)
				}
				rest, err := Collect(c2.All(ctx))
				if err != nil {
					t.Fatal(err)
				}
				got := append(keysOf(first), keysOf(rest)...)
				if tt.ordered {
					sameSequence(t, got, tt.want)
				} else {
					sameSet(t, got, tt.want)
				}
			})
		}
		segs := PartitionSegments("p01", "p02")
		c, _ := New(tbl).Parallel(segs, nil)
		for range c.All(ctx) {
			break
		}
		tok := c.Token()
		for name, try := range map[string]func() error{
			"other segments": func() error {
				_, err := New(tbl).ResumeParallel(tok, PartitionSegments("p01", "p03"), nil)
				return err
			},
			"segment order": func() error {
				_, err := New(tbl).ResumeParallel(tok, PartitionSegments("p02", "p01"), nil)
				return err
			},
			"base filter": func() error {
				_, err := New(tbl).Where(sparse).ResumeParallel(tok, segs, nil)
				return err
			},
			"as sequential": func() error { _, err := New(tbl).Where(Partition("p01")).Resume(tok); return err },
		} {
			if err := try(); !errors.Is(err, tablekit.ErrInvalid) {
				t.Errorf("%s: err = %v, want tablekit.ErrInvalid", name, err)
			}
		}
	})

	t.Run("Options", func(t *testing.T) {
		segs := PartitionSegments("p01")
		for name, try := range map[string]func() error{
			"parallelism 65": func() error { _, err := New(tbl).Parallel(segs, &ParallelOptions{Parallelism: 65}); return err },
			"parallelism -1": func() error { _, err := New(tbl).Parallel(segs, &ParallelOptions{Parallelism: -1}); return err },
			"no segments":    func() error { _, err := New(tbl).Parallel(nil, nil); return err },
		} {
			if err := try(); !errors.Is(err, tablekit.ErrInvalid) {
				t.Errorf("%s: err = %v, want tablekit.ErrInvalid", name, err)
			}
		}
		if _, err := New(tbl).Parallel(PartitionSegments("a", "a"), nil); !errors.Is(err, tablekit.ErrInvalid) {
			t.Errorf("duplicate partitions: err = %v", err)
		}
		if _, err := New(tbl).NoTableScan().Parallel(RangeSegments(), nil); !errors.Is(err, tablekit.ErrInvalid) {
			t.Errorf("NoTableScan, one whole-table segment: err = %v", err)
		}
		if _, err := New(tbl).NoTableScan().Parallel(RangeSegments("p10"), nil); err != nil {
			t.Errorf("NoTableScan, range segments: %v", err)
		}
	})

	t.Run("BreakStopsEverything", func(t *testing.T) {
		for _, ordered := range []bool{false, true} {
			c, _ := New(tbl).PageSize(5).Parallel(PartitionSegments(partitionKeys(bigPartitions)...), &ParallelOptions{Ordered: ordered, Parallelism: 16})
			n := 0
			for _, err := range c.All(ctx) {
				if err != nil {
					t.Fatal(err)
				}
				if n++; n == 3 {
					break
				}
			}
			checkNoGoroutines(t)
		}
	})
}

// TestParallelFirstErrorCancels injects a non-retryable error into one
// segment's requests: the run yields it once, the other segments' requests
// stop, and no goroutine is left.
func TestParallelFirstErrorCancels(t *testing.T) {
	env, px := testenv.Proxied(t)
	svc := newService(t, px.Endpoint(env.Account), nil)
	tbl := testenv.NewTable[item](t, svc)
	var all []item
	for p := range 16 {
		for r := range 50 {
			all = append(all, makeItem(p, r))
		}
	}
	load(t, tbl, all)
	ctx := testenv.Ctx(t)

	// One segment fails at once with a non-retryable 400; the proxy holds
	// every other request longer than the run's context lasts, so the run
	// ends with the 400 alone only if it canceled them.
	bad := func(r *http.Request) bool { return strings.Contains(r.URL.RawQuery, "p02") }
	px.SetRules(
		faults.Rule{Match: bad, Fault: faults.Status(http.StatusBadRequest, "InvalidInput", nil)},
		faults.Rule{Fault: faults.Latency(time.Hour)},
	)
	px.Reset()
	c, err := New(tbl).PageSize(2).Parallel(PartitionSegments(partitionKeys(16)...), &ParallelOptions{Parallelism: 4})
	if err != nil {
		t.Fatal(err)
	}
	var errs []error
	n := 0
	for _, err := range c.All(testenv.Context(t, 30*time.Second)) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		n++
	}
	checkNoGoroutines(t)
	if len(errs) != 1 || !errors.Is(errs[0], tablekit.ErrService) {
		t.Fatalf("errors %v, want one tablekit.ErrService (a deadline means the held requests were waited for, not canceled)", errs)
	}
	var requests int
	for _, v := range px.Counts() {
		requests += v
	}
	if requests > 4 || n != 0 {
		t.Errorf("%d requests, %d entities: want only the first 4 requests and nothing returned", requests, n)
	}
	// The position survives the error: resuming after the fault is gone
	// returns exactly the rest.
	px.SetRules()
	px.SetLatency(5 * time.Millisecond)
	// The deprecated option resumes as ResumeParallel does.
	c2, err := New(tbl).PageSize(2).Parallel(PartitionSegments(partitionKeys(16)...), &ParallelOptions{Resume: c.Token()})
	if err != nil {
		t.Fatal(err)
	}
	rest, err := Collect(c2.All(ctx))
	if err != nil {
		t.Fatal(err)
	}
	if n+len(rest) != len(all) {
		t.Errorf("%d before the error + %d after resume, want %d", n, len(rest), len(all))
	}

	// A canceled context ends the run with its error, and nothing stays.
	cctx, cancel := context.WithCancel(ctx)
	c3, _ := New(tbl).PageSize(2).Parallel(PartitionSegments(partitionKeys(16)...), &ParallelOptions{Parallelism: 8})
	var last error
	n = 0
	for _, err := range c3.All(cctx) {
		if err != nil {
			last = err
			continue
		}
		if n++; n == 5 {
			cancel()
		}
	}
	cancel()
	checkNoGoroutines(t)
	if !errors.Is(last, context.Canceled) {
		t.Errorf("after cancel: err = %v, want context.Canceled", last)
	}
}

// TestParallelOverlapsRequests runs one query over 16 segments with
// Parallelism 16 through a gate that holds the first 16 requests until all
// of them are in flight: the run completes only if its requests overlap,
// never has more than 16 in flight, returns what a sequential query
// returns, and reuses its connections. That a parallel scan is faster is a
// claim about speed, measured by `make bench` (devtools/cmd/bench: the
// parallel segmented scan against the sequential pager with added latency).
func TestParallelOverlapsRequests(t *testing.T) {
	env, px := testenv.Proxied(t)
	const par = 16
	gate := &inFlightGate{next: table.ClientOptions(&table.Options{PoolSize: par}).Transport}
	svc := newService(t, px.Endpoint(env.Account), &table.Options{Transport: gate})
	tbl := testenv.NewTable[item](t, svc)
	const shards, perShard = 16, 20
	prefixes := table.ShardPrefixes(shards)
	var all []item
	for i := range shards * perShard {
		e := makeItem(0, i)
		e.PartitionKey = fmt.Sprintf("%s-k%d", prefixes[i%shards], i/40) // a few partitions per shard
		e.RowKey = fmt.Sprintf("k%04d", i)
		all = append(all, e)
	}
	load(t, tbl, all)
	// Pages of 10: two requests a shard, 32 in all.
	q := New(tbl).PageSize(10)
	seq, err := Collect(q.All(testenv.Ctx(t)))
	if err != nil {
		t.Fatal(err)
	}
	if len(seq) != len(all) {
		t.Errorf("sequential: %d entities, want %d", len(seq), len(all))
	}

	for _, ordered := range []bool{false, true} {
		t.Run(fmt.Sprintf("ordered=%v", ordered), func(t *testing.T) {
			px.Reset()
			gate.hold(par)
			c, err := q.Parallel(ShardSegments(shards), &ParallelOptions{Parallelism: par, Ordered: ordered})
			if err != nil {
				t.Fatal(err)
			}
			got, err := Collect(c.All(testenv.Context(t, 30*time.Second)))
			if err != nil {
				t.Fatalf("run: %v (its first %d requests were held until all were in flight: fewer overlapped)", err, par)
			}
			if ordered {
				sameSequence(t, keysOf(got), keysOf(seq))
			} else {
				sameSet(t, keysOf(got), keysOf(seq))
			}
			if got, want := gate.maxInFlight(), par; got != want {
				t.Errorf("requests in flight at most: got %d, want %d (Parallelism)", got, want)
			}
			// The first run fills the pool (a connection a request in
			// flight); the second finds it warm.
			most := par + 2
			if ordered {
				most = 2
			}
			if conns := px.Conns(); conns > most {
				t.Errorf("new connections: got %d, want at most %d", conns, most)
			}
			checkNoGoroutines(t)
		})
	}
}

// inFlightGate is a transport that counts the requests in flight and,
// once hold(n) is called, holds the next n requests until all n are in
// flight together (or a request's context ends): a test that completes
// through it proves the overlap without measuring time.
type inFlightGate struct {
	next policy.Transporter

	mu       sync.Mutex
	inFlight int
	most     int           // the most in flight since hold
	waiting  int           // requests still to hold
	open     chan struct{} // closed when the held requests are all in
}

func (g *inFlightGate) hold(n int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.most, g.waiting, g.open = g.inFlight, n, make(chan struct{})
}

func (g *inFlightGate) maxInFlight() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.most
}

func (g *inFlightGate) Do(req *http.Request) (*http.Response, error) {
	g.mu.Lock()
	g.inFlight++
	g.most = max(g.most, g.inFlight)
	open := g.open
	held := g.waiting > 0
	if held {
		if g.waiting--; g.waiting == 0 {
			close(g.open)
		}
	}
	g.mu.Unlock()
	defer func() {
		g.mu.Lock()
		g.inFlight--
		g.mu.Unlock()
	}()
	if held {
		select {
		case <-open:
		case <-req.Context().Done():
			return nil, req.Context().Err()
		}
	}
	return g.next.Do(req)
}

// TestParallelSegmentsShareSizeHint checks that a parallel run's segments
// size a chunked page's first buffer from the largest page any of them read
// (most segments of a run read one page, which would otherwise grow by
// doubling), and that another query keeps its own.
func TestParallelSegmentsShareSizeHint(t *testing.T) {
	svc, err := table.NewService(azurite.ConnectionString("http://127.0.0.1:1/devstoreaccount1"), nil)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := table.New[item](svc, "hints")
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(tbl).Parallel(PartitionSegments("a", "b", "c"), nil)
	if err != nil {
		t.Fatal(err)
	}
	c.plans[1].lastBody.Store(1 << 20)
	for i, p := range c.plans {
		if got, want := p.lastBody.Load(), int64(1<<20); got != want {
			t.Errorf("segment %d: size hint %d, want %d (the run's)", i, got, want)
		}
	}
	other, err := New(tbl).compile(Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if got := other.lastBody.Load(); got != 0 {
		t.Errorf("another query: size hint %d, want 0 (its own)", got)
	}
}

// TestUnorderedHandsNewestPageFirst: an unordered run hands out the page
// that arrived last first, each page whole: a page arriving while another
// is handed out waits for it to end.
func TestUnorderedHandsNewestPageFirst(t *testing.T) {
	c := &ParallelCursor[string]{parallelism: 3, trackers: make([]tracker, 3)}
	r := &parallelRun[string]{cursor: c, segments: make([]segmentRun[string], 3), inFlight: 3}
	page := func(seg int, rks ...string) fetchResult[string] {
		p := &rawPage[string]{next: position{Done: true}}
		for _, rk := range rks {
			p.entities = append(p.entities, fmt.Sprintf("s%d/%s", seg, rk))
			p.keys = append(p.keys, keyPair{fmt.Sprintf("p%d", seg), rk})
		}
		return fetchResult[string]{segment: seg, page: p}
	}
	var got []string
	take := func(n int) {
		t.Helper()
		for range n {
			e, ok, _ := r.next()
			if !ok {
				t.Fatalf("after %v: nothing to hand out", got)
			}
			got = append(got, e)
		}
	}
	r.receive(page(0, "a", "b"))
	r.receive(page(1, "a", "b"))
	take(1)
	r.receive(page(2, "a", "b"))
	take(5)
	if want := []string{"s1/a", "s1/b", "s2/a", "s2/b", "s0/a", "s0/b"}; !slices.Equal(got, want) {
		t.Errorf("handed out %v, want %v", got, want)
	}
	if _, ok, _ := r.next(); ok || len(r.arrivalOrder) != 0 {
		t.Errorf("after every page: more to hand out (%v) or pages queued (%v), want neither", ok, r.arrivalOrder)
	}
}
