package query

import (
	"errors"
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
	env := testenv.Azurite(t)
	px, err := faults.Start(strings.TrimSuffix(env.Endpoint, "/"+env.Account))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = px.Close() })
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
	below02 := g.keys(func(e item) bool { return e.PartitionKey < "p02" })
	p00 := g.keys(func(e item) bool { return e.PartitionKey == "p00" })
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
		{"past the range once", faults.Rule{Match: nthRead(1), Times: 1, Fault: faults.ContinuationTo("p02", "r0000")}, New(g.tbl).Where(PartitionKey.Lt(String("p02"))), below02, 1, nil},
		{"past the partition once", faults.Rule{Match: nthRead(1), Times: 1, Fault: faults.ContinuationTo("p01", "r0000")}, New(g.tbl).Where(Partition("p00")), p00, 1, nil},
		{"backwards always", faults.Rule{Match: nthRead(1), Fault: backwards}, New(g.tbl), all, 0, tablekit.ErrUnavailable},
		{"back to an earlier page always", faults.Rule{Match: nthRead(3), Fault: earlier}, New(g.tbl), all, 0, tablekit.ErrUnavailable},
		{"last key always", faults.Rule{Match: nthRead(1), Fault: faults.GarbleContinuation(faults.ContinuationLastKey)}, New(g.tbl), all, 0, tablekit.ErrUnavailable},
		{"cut short always", faults.Rule{Match: nthRead(3), Fault: faults.GarbleContinuation(faults.ContinuationTruncated)}, New(g.tbl), all, 0, tablekit.ErrUnavailable},
		{"empty page, backwards always", faults.Rule{Match: withRowKey, Fault: faults.GarbleContinuation(faults.ContinuationEmptyBackwards)}, New(g.tbl), all, 0, tablekit.ErrUnavailable},
		{"past the range always", faults.Rule{Match: nthRead(1), Fault: faults.ContinuationTo("p02", "")}, New(g.tbl).Where(PartitionKey.Lt(String("p02"))), below02, 0, tablekit.ErrUnavailable},
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
