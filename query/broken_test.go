package query

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/devtools/faults"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/retry"
	"github.com/tablekit/tablekit/table"
)

// TestBrokenPages: a query page whose reply is garbled or cut short is
// retried by the table's pipeline, so the query sees every entity once; when
// every attempt breaks, the error matches tablekit.ErrUnavailable.
func TestBrokenPages(t *testing.T) {
	env, px := testenv.Proxied(t)
	fast := retry.Policy{InitialInterval: 5 * time.Millisecond, MaxInterval: 20 * time.Millisecond, MaxAttempts: 4}
	tbl := testenv.NewTable[item](t, newService(t, px.Endpoint(env.Account), &table.Options{Retry: &fast}))
	var want []item
	for r := range 25 {
		want = append(want, makeItem(1, r))
	}
	load(t, tbl, want)

	second := func() func(*http.Request) bool { // the second page's request
		var n atomic.Int32
		return func(r *http.Request) bool { return r.Method == http.MethodGet && n.Add(1) == 2 }
	}
	tests := []struct {
		name string
		rule faults.Rule
		want error // nil: every entity
	}{
		{"second page garbled once", faults.Rule{Match: second(), Fault: faults.GarbleAfterForward()}, nil},
		{"second page cut short once", faults.Rule{Match: second(), Fault: faults.TruncateAfterForward()}, nil},
		// Whole entities first, then the damage: the decoder meets it
		// mid-page, and the reply is retried as broken, not reported as
		// an entity the type cannot hold.
		{"second page garbled in its middle once", faults.Rule{Match: second(), Fault: faults.GarbleMiddleAfterForward()}, nil},
		{"every page garbled in its middle", faults.Rule{Match: faults.Method(http.MethodGet), Fault: faults.GarbleMiddleAfterForward()}, tablekit.ErrUnavailable},
		{"every page garbled", faults.Rule{Match: faults.Method(http.MethodGet), Fault: faults.GarbleAfterForward()}, tablekit.ErrUnavailable},
		{"every page cut short", faults.Rule{Match: faults.Method(http.MethodGet), Fault: faults.TruncateAfterForward()}, tablekit.ErrUnavailable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			px.SetRules(tc.rule)
			defer px.SetRules()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			got, err := Collect(New(tbl).Where(Partition("p01")).PageSize(10).All(ctx))
			if px.Injected() == 0 {
				t.Fatal("no fault injected: the test proves nothing")
			}
			if tc.want != nil {
				if !errors.Is(err, tc.want) {
					t.Fatalf("got %v, want an error matching %v", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatalf("got %v, want every entity", err)
			}
			sameSequence(t, keysOf(got), keysOf(want))
		})
	}
}

// TestUndecodablePageReadOnce: a whole page that the query's type cannot
// hold is the query's error (tablekit.ErrDecode), after one request. The
// page is decoded as its reply arrives, in the retry policy; only a body
// that is not whole JSON is retried as broken.
func TestUndecodablePageReadOnce(t *testing.T) {
	env, px := testenv.Proxied(t)
	tbl := testenv.NewTable[item](t, newService(t, px.Endpoint(env.Account), nil))
	load(t, tbl, []item{makeItem(1, 0), makeItem(1, 1)})
	type wrongType struct {
		PartitionKey, RowKey string
		Big                  string // stored as Edm.Int64
	}
	wrong, err := table.As[wrongType](tbl)
	if err != nil {
		t.Fatal(err)
	}
	px.Reset()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err = Collect(New(wrong).Where(Partition("p01")).All(ctx))
	if !errors.Is(err, tablekit.ErrDecode) || errors.Is(err, tablekit.ErrUnavailable) {
		t.Fatalf("got %v, want tablekit.ErrDecode alone", err)
	}
	if got, want := px.Count("GET /"+env.Account+"/"+tbl.Name()+"()"), 1; got != want {
		t.Errorf("page requests: got %d, want %d", got, want)
	}
}
