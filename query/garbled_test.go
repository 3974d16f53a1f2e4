package query

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/devtools/faults"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/retry"
	"github.com/tablekit/tablekit/table"
)

// garbledTable is a table of 3 partitions of 12 entities behind a faults
// proxy, read in pages of 5 so that pages cross partitions.
type garbledTable struct {
	px    *faults.Proxy
	tbl   *table.Table[item]
	path  string // of the table's query requests
	items []item
}

func newGarbledTable(t *testing.T) *garbledTable {
	t.Helper()
	env, px := testenv.Proxied(t)
	fast := retry.Policy{InitialInterval: 5 * time.Millisecond, MaxInterval: 20 * time.Millisecond, MaxAttempts: 4}
	g := &garbledTable{px: px, tbl: testenv.NewTable[item](t, newService(t, px.Endpoint(env.Account), &table.Options{Retry: &fast}))}
	g.path = "GET /" + env.Account + "/" + g.tbl.Name() + "()"
	for p := range 3 {
		for r := range 12 {
			g.items = append(g.items, makeItem(p, r))
		}
	}
	load(t, g.tbl, g.items)
	return g
}

// reads counts the query requests (pages) the proxy saw since its last Reset.
func (g *garbledTable) reads() int { return g.px.Count(g.path) }

// keys returns the keys of the table's entities that keep accepts, in key
// order.
func (g *garbledTable) keys(keep func(item) bool) []string {
	return keysOf(filterItems(g.items, keep))
}

// nthRead matches the query requests from the nth on (1-based), as many as
// the rule's Times allows.
func nthRead(n int32) func(*http.Request) bool {
	var seen atomic.Int32
	return func(r *http.Request) bool {
		return r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "()") && seen.Add(1) >= n
	}
}

// withRowKey matches query requests that carry a whole continuation.
func withRowKey(r *http.Request) bool {
	return r.Method == http.MethodGet && r.URL.Query().Get("NextRowKey") != ""
}

// filterHas matches query requests whose $filter contains s: one segment's.
func filterHas(s string) func(*http.Request) bool {
	return func(r *http.Request) bool {
		return r.Method == http.MethodGet && strings.Contains(r.URL.Query().Get("$filter"), s)
	}
}

// checkPrefix checks that got, handed out before an error, repeats nothing
// and is the start of want (in key order: one Cursor).
func checkPrefix(t *testing.T, got, want []string) {
	t.Helper()
	if len(got) > len(want) {
		t.Fatalf("got %d entities before the error, more than the %d there are", len(got), len(want))
	}
	sameSequence(t, got, want[:len(got)])
}

// A Cursor whose replies carry a continuation that does not move forward
// reads the page again: every entity once, or, when the continuation stays
// bad, tablekit.ErrUnavailable with nothing repeated before it.
func TestGarbledContinuationCursor(t *testing.T) {
	g := newGarbledTable(t)
	all := g.keys(func(item) bool { return true })
	// On the first page (the request has no continuation) the first key is
	// a step back; on the others it is the request's own continuation.
	backwards := faults.GarbleContinuation(faults.ContinuationFirstKey)
	earlier := faults.ContinuationTo("p00", "r0001") // the third page starts at p00/r0010
	tests := []struct {
		name  string
		rule  faults.Rule
		q     Query[item]
		want  []string // what the query returns
		extra int      // requests beyond the clean run's
		err   error    // nil: every entity of want once
	}{
		{"backwards once", faults.Rule{Match: nthRead(1), Times: 1, Fault: backwards}, New(g.tbl), all, 1, nil},
		{"backwards twice in a row", faults.Rule{Match: nthRead(1), Times: 2, Fault: backwards}, New(g.tbl), all, 2, nil},
		{"back to an earlier page once", faults.Rule{Match: nthRead(3), Times: 1, Fault: earlier}, New(g.tbl), all, 1, nil},
		{"last key once", faults.Rule{Match: nthRead(3), Times: 1, Fault: faults.GarbleContinuation(faults.ContinuationLastKey)}, New(g.tbl), all, 1, nil},
		{"cut short once", faults.Rule{Match: nthRead(2), Times: 1, Fault: faults.GarbleContinuation(faults.ContinuationTruncated)}, New(g.tbl), all, 1, nil},
		{"empty page, forward", faults.Rule{Match: nthRead(1), Times: 1, Fault: faults.GarbleContinuation(faults.ContinuationEmptyPage)}, New(g.tbl), all, 1, nil},
		{"empty page, backwards once", faults.Rule{Match: withRowKey, Times: 1, Fault: faults.GarbleContinuation(faults.ContinuationEmptyBackwards)}, New(g.tbl), all, 1, nil},
		{"backwards always", faults.Rule{Match: nthRead(1), Fault: backwards}, New(g.tbl), all, 0, tablekit.ErrUnavailable},
		{"back to an earlier page always", faults.Rule{Match: nthRead(3), Fault: earlier}, New(g.tbl), all, 0, tablekit.ErrUnavailable},
		{"last key always", faults.Rule{Match: nthRead(1), Fault: faults.GarbleContinuation(faults.ContinuationLastKey)}, New(g.tbl), all, 0, tablekit.ErrUnavailable},
		{"cut short always", faults.Rule{Match: nthRead(3), Fault: faults.GarbleContinuation(faults.ContinuationTruncated)}, New(g.tbl), all, 0, tablekit.ErrUnavailable},
		{"empty page, backwards always", faults.Rule{Match: withRowKey, Fault: faults.GarbleContinuation(faults.ContinuationEmptyBackwards)}, New(g.tbl), all, 0, tablekit.ErrUnavailable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := tc.q.PageSize(5)
			g.px.SetRules()
			g.px.Reset()
			if _, err := Collect(q.All(testenv.Ctx(t))); err != nil {
				t.Fatal(err)
			}
			clean := g.reads()
			g.px.SetRules(tc.rule)
			defer g.px.SetRules()
			g.px.Reset()
			got, err := Collect(q.All(testenv.Ctx(t)))
			if g.px.Injected() == 0 {
				t.Fatal("no fault injected: the test proves nothing")
			}
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("got %v, want an error matching %v", err, tc.err)
				}
				if !strings.Contains(err.Error(), "continuation") {
					t.Errorf("error %q does not say it is the continuation", err)
				}
				checkPrefix(t, keysOf(got), tc.want)
				return
			}
			if err != nil {
				t.Fatalf("got %v, want every entity", err)
			}
			sameSequence(t, keysOf(got), tc.want)
			if got, want := g.reads(), clean+tc.extra; got != want {
				t.Errorf("requests: got %d, want %d (%d of a clean run, %d read again)", got, want, clean, tc.extra)
			}
		})
	}
}

// Pages, and a token taken in the middle of a page, resume through garbled
// continuations: the runs together return every entity once.
func TestGarbledContinuationResume(t *testing.T) {
	g := newGarbledTable(t)
	all := g.keys(func(item) bool { return true })
	q := New(g.tbl).PageSize(5)
	tests := []struct {
		name  string
		first int // entities the first run hands out before it stops
		rule  faults.Rule
	}{
		{"page boundary, backwards", 10, faults.Rule{Match: nthRead(1), Times: 1, Fault: faults.ContinuationTo("p00", "r0003")}},
		{"page boundary, cut short", 10, faults.Rule{Match: nthRead(1), Times: 2, Fault: faults.GarbleContinuation(faults.ContinuationTruncated)}},
		{"mid-page, last key", 7, faults.Rule{Match: nthRead(1), Times: 2, Fault: faults.GarbleContinuation(faults.ContinuationLastKey)}},
		{"mid-page, empty page backwards", 7, faults.Rule{Match: withRowKey, Times: 1, Fault: faults.GarbleContinuation(faults.ContinuationEmptyBackwards)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := testenv.Ctx(t)
			c, err := q.Resume("")
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for page, err := range c.Pages(ctx) {
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range page.Entities {
					if len(got) < tc.first {
						got = append(got, e.PartitionKey+"/"+e.RowKey)
					}
				}
				if len(got) >= tc.first {
					break
				}
			}
			token := c.Token()
			if tc.first%5 != 0 { // stop in the middle of a page: the token skips by key
				c, _ = q.Resume("")
				got = got[:0]
				for e, err := range c.All(ctx) {
					if err != nil {
						t.Fatal(err)
					}
					got = append(got, e.PartitionKey+"/"+e.RowKey)
					if len(got) == tc.first {
						break
					}
				}
				token = c.Token()
			}
			g.px.SetRules(tc.rule)
			defer g.px.SetRules()
			g.px.Reset()
			resumed, err := q.Resume(token)
			if err != nil {
				t.Fatal(err)
			}
			rest, err := Collect(resumed.All(ctx))
			if err != nil {
				t.Fatalf("resumed run: %v", err)
			}
			if g.px.Injected() == 0 {
				t.Fatal("no fault injected: the test proves nothing")
			}
			sameSequence(t, append(got, keysOf(rest)...), all)
		})
	}
}

// A token whose service continuation names no key cannot come from a
// backend with key order: ErrInvalid, before any request.
func TestResumeUnparseableContinuation(t *testing.T) {
	tr := &brokenContinuation{}
	svc, err := table.NewServiceWithSharedKey("http://127.0.0.1:1/devstoreaccount1", "devstoreaccount1", "a2V5", &table.Options{Transport: tr})
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := table.New[item](svc, "tokens")
	if err != nil {
		t.Fatal(err)
	}
	q := New(tbl).Where(PartitionKey.Ge(String("a")))
	c, err := q.Resume("")
	if err != nil {
		t.Fatal(err)
	}
	good, bad := "cDAx", "cDA!x"
	for _, tc := range []struct {
		name string
		pos  position
		ok   bool
	}{
		{"both keys", position{NextPartitionKey: &good, NextRowKey: &good}, true},
		{"partition only", position{NextPartitionKey: &good}, true},
		{"partition key garbled", position{NextPartitionKey: &bad, NextRowKey: &good}, false},
		{"row key garbled", position{NextPartitionKey: &good, NextRowKey: &bad}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			token := encodeToken(tokenJSON{Binding: c.binding, position: tc.pos})
			_, err := q.Resume(token)
			if got, want := err == nil, tc.ok; got != want {
				t.Errorf("Resume: got %v, want ok %v", err, want)
			}
			if !tc.ok && !errors.Is(err, tablekit.ErrInvalid) {
				t.Errorf("Resume: got %v, want tablekit.ErrInvalid", err)
			}
			pc, _ := q.Parallel(RangeSegments("m"), nil)
			ptoken := encodeToken(tokenJSON{Binding: pc.binding, Segments: []position{{}, tc.pos}})
			_, err = q.Parallel(RangeSegments("m"), &ParallelOptions{Resume: ptoken})
			if got, want := err == nil, tc.ok; got != want {
				t.Errorf("Parallel: got %v, want ok %v", err, want)
			}
			if !tc.ok && !errors.Is(err, tablekit.ErrInvalid) {
				t.Errorf("Parallel: got %v, want tablekit.ErrInvalid", err)
			}
		})
	}
	if tr.requests != 0 {
		t.Errorf("requests: got %d, want 0", tr.requests)
	}
}

// checkDistinct checks that got, handed out before an error, repeats
// nothing and holds only keys of want.
func checkDistinct(t *testing.T, got, want []string) {
	t.Helper()
	known := make(map[string]bool, len(want))
	for _, k := range want {
		known[k] = true
	}
	seen := make(map[string]bool, len(got))
	for _, k := range got {
		if seen[k] || !known[k] {
			t.Errorf("%s returned twice, or not in the table", k)
		}
		seen[k] = true
	}
}

// A parallel run whose segments' continuations are garbled (one going
// back, one not past its page, one an empty page going back) returns every entity once, ordered or not; a
// segment whose continuation stays bad fails the run with
// tablekit.ErrUnavailable, nothing repeated.
func TestGarbledContinuationParallel(t *testing.T) {
	g := newGarbledTable(t)
	all := g.keys(func(item) bool { return true })
	segs := RangeSegments("p01", "p02")
	seg0, seg1, seg2 := filterHas("lt 'p01'"), filterHas("lt 'p02'"), filterHas("ge 'p02'")
	recovering := []faults.Rule{
		{Match: seg0, Times: 2, Fault: faults.GarbleContinuation(faults.ContinuationFirstKey)},
		{Match: seg1, Times: 2, Fault: faults.GarbleContinuation(faults.ContinuationLastKey)},
		{Match: faults.And(seg2, withRowKey), Times: 2, Fault: faults.GarbleContinuation(faults.ContinuationEmptyBackwards)},
	}
	for _, ordered := range []bool{false, true} {
		t.Run(fmt.Sprintf("recovers/ordered=%v", ordered), func(t *testing.T) {
			g.px.SetRules(recovering...)
			defer g.px.SetRules()
			g.px.Reset()
			pc, err := New(g.tbl).PageSize(5).Parallel(segs, &ParallelOptions{Parallelism: 3, Ordered: ordered})
			if err != nil {
				t.Fatal(err)
			}
			got, err := Collect(pc.All(testenv.Ctx(t)))
			if err != nil {
				t.Fatal(err)
			}
			if got, want := g.px.Injected(), 6; got != want {
				t.Errorf("faults injected: got %d, want %d", got, want)
			}
			if ordered {
				sameSequence(t, keysOf(got), all)
			} else {
				sameSet(t, keysOf(got), all)
			}
			checkNoGoroutines(t)
		})
	}
	t.Run("fails", func(t *testing.T) {
		g.px.SetRules(faults.Rule{Match: seg1, Fault: faults.GarbleContinuation(faults.ContinuationFirstKey)})
		defer g.px.SetRules()
		pc, err := New(g.tbl).PageSize(5).Parallel(segs, &ParallelOptions{Parallelism: 3})
		if err != nil {
			t.Fatal(err)
		}
		got, err := Collect(pc.All(testenv.Ctx(t)))
		if !errors.Is(err, tablekit.ErrUnavailable) {
			t.Fatalf("got %v, want tablekit.ErrUnavailable", err)
		}
		if !strings.Contains(err.Error(), "segment 1") {
			t.Errorf("error %q does not name segment 1", err)
		}
		checkDistinct(t, keysOf(got), all)
		checkNoGoroutines(t)
	})
}

// TestSoakGarbledContinuations runs parallel scans while a quarter of the
// pages have their continuation garbled, at random among the faults that
// can be detected: every run returns every entity once, or fails with
// tablekit.ErrUnavailable having repeated nothing.
func TestSoakGarbledContinuations(t *testing.T) {
	g := newGarbledTable(t)
	all := g.keys(func(item) bool { return true })
	rule := func(f faults.Fault) faults.Rule {
		return faults.Rule{Match: faults.Method(http.MethodGet), Probability: 0.06, Fault: f}
	}
	failed, injected := 0, 0
	runs := testenv.Size(24, 4)
	for run := range runs {
		g.px.SetSeed(uint64(run + 1))
		g.px.SetRules(
			rule(faults.GarbleContinuation(faults.ContinuationFirstKey)),
			rule(faults.GarbleContinuation(faults.ContinuationLastKey)),
			rule(faults.GarbleContinuation(faults.ContinuationTruncated)),
			faults.Rule{Match: withRowKey, Probability: 0.06, Fault: faults.GarbleContinuation(faults.ContinuationEmptyBackwards)},
		)
		g.px.Reset()
		pc, err := New(g.tbl).PageSize(3).Parallel(RangeSegments("p01", "p02"), &ParallelOptions{Parallelism: 3})
		if err != nil {
			t.Fatal(err)
		}
		got, err := Collect(pc.All(testenv.Ctx(t)))
		injected += g.px.Injected()
		if err != nil {
			if !errors.Is(err, tablekit.ErrUnavailable) {
				t.Fatalf("run %d: got %v, want every entity or tablekit.ErrUnavailable", run, err)
			}
			failed++
			checkDistinct(t, keysOf(got), all)
			continue
		}
		sameSet(t, keysOf(got), all)
	}
	g.px.SetRules()
	if injected == 0 {
		t.Fatal("no fault injected: the test proves nothing")
	}
	t.Logf("%d continuations garbled; %d of %d runs failed with tablekit.ErrUnavailable, the others returned every entity once", injected, failed, runs)
}

// A continuation at or past the end of the query's key range ends the query
// without another request: the service may name such a key (a partition
// server's boundary), and nothing the query returns lies there.
func TestContinuationAtRangeEnd(t *testing.T) {
	g := newGarbledTable(t)
	tests := []struct {
		name   string
		q      Query[item]
		want   []string
		pk, rk string
	}{
		{"the range's upper end", New(g.tbl).Where(PartitionKey.Lt(String("p02"))), g.keys(func(e item) bool { return e.PartitionKey < "p02" }), "p02", ""},
		{"the next partition", New(g.tbl).Where(Partition("p00")), g.keys(func(e item) bool { return e.PartitionKey == "p00" }), "p01", "r0000"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := tc.q.PageSize(5)
			g.px.SetRules()
			g.px.Reset()
			if _, err := Collect(q.All(testenv.Ctx(t))); err != nil {
				t.Fatal(err)
			}
			clean := g.reads()
			// The last page, which has no continuation, gets one at the end.
			g.px.SetRules(faults.Rule{Match: nthRead(int32(clean)), Times: 1, Fault: faults.ContinuationTo(tc.pk, tc.rk)})
			defer g.px.SetRules()
			g.px.Reset()
			got, err := Collect(q.All(testenv.Ctx(t)))
			if err != nil {
				t.Fatalf("got %v, want every entity", err)
			}
			if g.px.Injected() == 0 {
				t.Fatal("no fault injected: the test proves nothing")
			}
			sameSequence(t, keysOf(got), tc.want)
			if got := g.reads(); got != clean {
				t.Errorf("requests: got %d, want %d (the continuation at the end is not followed)", got, clean)
			}
		})
	}
}
