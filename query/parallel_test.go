package query

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tablekit/tablekit"
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
	env := testenv.Azurite(t)
	px, err := faults.Start(strings.TrimSuffix(env.Endpoint, "/"+env.Account))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { px.Close() })
	svc := newService(t, px.Endpoint(env.Account), nil)
	tbl := testenv.NewTable[item](t, svc)
	var all []item
	for p := range 16 {
		for r := range 50 {
			all = append(all, makeItem(p, r))
		}
	}
	load(t, tbl, all)
	ctx := context.Background()

	// One segment fails at once with a non-retryable 400; every other
	// request is held 2 s by the proxy, so a run that returns quickly has
	// canceled them instead of waiting.
	bad := func(r *http.Request) bool { return strings.Contains(r.URL.RawQuery, "p02") }
	px.SetRules(
		faults.Rule{Match: bad, Fault: faults.Status(http.StatusBadRequest, "InvalidInput", nil)},
		faults.Rule{Fault: faults.Latency(2 * time.Second)},
	)
	px.Reset()
	c, err := New(tbl).PageSize(2).Parallel(PartitionSegments(partitionKeys(16)...), &ParallelOptions{Parallelism: 4})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	var errs []error
	n := 0
	for _, err := range c.All(ctx) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		n++
	}
	elapsed := time.Since(start)
	checkNoGoroutines(t)
	if len(errs) != 1 || !errors.Is(errs[0], tablekit.ErrService) {
		t.Fatalf("errors %v, want one tablekit.ErrService", errs)
	}
	var requests int
	for _, v := range px.Counts() {
		requests += v
	}
	t.Logf("error after %v, %d entities, %d requests", elapsed, n, requests)
	if elapsed > time.Second {
		t.Errorf("the run took %v: requests in flight were waited for, not canceled", elapsed)
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

// TestParallelLatency runs one query through a proxy that adds latency to
// every request, with small pages so that latency dominates: 16 segments in
// parallel must be at least 3x faster than the same query run sequentially,
// and the run must reuse its connections (no more than its parallelism).
//
// The latency is 150 ms rather than the 20 ms of a same-region round trip:
// on a 2-core test machine every request costs about 10 ms of CPU between
// Azurite (one thread), the proxy and the client under -race, and 16
// requests at once queue for it (more so while other packages' tests run);
// with 20 ms that CPU time, not latency, would be measured. Each of the 16
// shards holds 20 entities, two pages of 10: 32 requests either way.
func TestParallelLatency(t *testing.T) {
	env := testenv.Azurite(t)
	px, err := faults.Start(strings.TrimSuffix(env.Endpoint, "/"+env.Account))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { px.Close() })
	svc := newService(t, px.Endpoint(env.Account), nil)
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
	ctx := context.Background()
	q := New(tbl).PageSize(10)

	px.SetLatency(150 * time.Millisecond)
	start := time.Now()
	seq, err := Collect(q.All(ctx))
	if err != nil {
		t.Fatal(err)
	}
	sequential := time.Since(start)

	const par = 16
	px.Reset()
	start = time.Now()
	c, err := q.Parallel(ShardSegments(shards), &ParallelOptions{Parallelism: par})
	if err != nil {
		t.Fatal(err)
	}
	got, err := Collect(c.All(ctx))
	if err != nil {
		t.Fatal(err)
	}
	parallel := time.Since(start)
	conns := px.Conns()
	sameSet(t, keysOf(got), keysOf(seq))
	if len(seq) != len(all) {
		t.Errorf("sequential: %d entities, want %d", len(seq), len(all))
	}

	// Ordered, on the now warm pool: the same sequence, still overlapping
	// requests, and (almost) no new connection.
	start = time.Now()
	c, _ = q.Parallel(ShardSegments(shards), &ParallelOptions{Parallelism: par, Ordered: true})
	got, err = Collect(c.All(ctx))
	if err != nil {
		t.Fatal(err)
	}
	ordered := time.Since(start)
	sameSequence(t, keysOf(got), keysOf(seq))
	conns2 := px.Conns() - conns
	ratio := float64(sequential) / float64(parallel)
	t.Logf("sequential %v, 16 segments in parallel %v: %.1fx (ordered %v: %.1fx); connections %d, then %d more",
		sequential, parallel, ratio, ordered, float64(sequential)/float64(ordered), conns, conns2)
	if ratio < 3 {
		t.Errorf("parallel run only %.1fx faster than sequential, want >= 3x", ratio)
	}
	if conns > par+2 {
		t.Errorf("%d connections for parallelism %d: connection churn", conns, par)
	}
	if conns2 > 2 {
		t.Errorf("second run opened %d new connections", conns2)
	}
	checkNoGoroutines(t)
}
