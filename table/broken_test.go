package table_test

import (
	"errors"
	"net/http"
	"testing"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/devtools/faults"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/internal/errmap"
	"github.com/tablekit/tablekit/table"
)

// TestBrokenReads: a point read whose reply is garbled or cut short is
// retried, and when every attempt breaks the caller gets tablekit.ErrUnavailable
// with the cause, not aztables' untyped unmarshalling error or a bare EOF.
func TestBrokenReads(t *testing.T) {
	tbl, px := proxied(t, table.Options{Retry: &fast})
	ctx := testenv.Ctx(t)
	if _, err := tbl.Add(ctx, Row{"p", "r", 7}); err != nil {
		t.Fatal(err)
	}
	reads := faults.Method(http.MethodGet)
	tests := []struct {
		name   string
		rule   faults.Rule
		sel    []string // GetOptions.Select: the read runs as a query
		want   error    // nil: success
		status int      // of the tablekit.ServiceError
	}{
		{"garbled once", faults.Rule{Match: reads, Times: 1, Fault: faults.GarbleAfterForward()}, nil, nil, 0},
		{"cut short once", faults.Rule{Match: reads, Times: 1, Fault: faults.TruncateAfterForward()}, nil, nil, 0},
		{"select, garbled once", faults.Rule{Match: reads, Times: 1, Fault: faults.GarbleAfterForward()}, []string{"V"}, nil, 0},
		{"garbled always", faults.Rule{Match: reads, Fault: faults.GarbleAfterForward()}, nil, tablekit.ErrUnavailable, 200},
		{"cut short always", faults.Rule{Match: reads, Fault: faults.TruncateAfterForward()}, nil, tablekit.ErrUnavailable, 200},
		{"select, cut short always", faults.Rule{Match: reads, Fault: faults.TruncateAfterForward()}, []string{"V"}, tablekit.ErrUnavailable, 200},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			px.SetRules(tc.rule)
			defer px.SetRules()
			got, err := tbl.Get(testenv.Ctx(t), "p", "r", &table.GetOptions{Select: tc.sel})
			if tc.want == nil {
				if err != nil || got.V != 7 {
					t.Fatalf("got %+v, %v; want V 7", got, err)
				}
				return
			}
			var be *errmap.Broken
			if !errors.Is(err, tc.want) || !errors.As(err, &be) {
				t.Fatalf("got %v, want an error matching %v around the broken reply", err, tc.want)
			}
			if be.StatusCode != tc.status || be.Method != "GET" {
				t.Errorf("broken reply: got %s %d, want GET %d", be.Method, be.StatusCode, tc.status)
			}
			for _, other := range []error{tablekit.ErrNotFound, tablekit.ErrService, tablekit.ErrMaybeCommitted} {
				if errors.Is(err, other) {
					t.Errorf("got %v, which also matches %v; want tablekit.ErrUnavailable alone", err, other)
				}
			}
		})
	}
}

// TestBrokenInsertEcho: an insert whose echoed entity is cut short was
// committed; it is retried, and the retry's conflict is tablekit.ErrMaybeCommitted,
// which Verify resolves.
func TestBrokenInsertEcho(t *testing.T) {
	tbl, px := proxied(t, table.Options{Retry: &fast, EchoInserts: true})
	ctx := testenv.Ctx(t)
	cut := faults.Rule{Match: faults.Method(http.MethodPost), Times: 1, Fault: faults.TruncateAfterForward()}
	px.SetRules(cut)
	if _, err := tbl.Add(ctx, Row{"p", "a", 1}); !errors.Is(err, tablekit.ErrMaybeCommitted) {
		t.Fatalf("got %v, want tablekit.ErrMaybeCommitted", err)
	}
	px.SetRules(cut)
	if _, err := tbl.Add(ctx, Row{"p", "b", 2}); !errors.Is(err, tablekit.ErrMaybeCommitted) {
		t.Fatalf("got %v, want tablekit.ErrMaybeCommitted", err)
	}
	if same, stored, err := tbl.Verify(ctx, Row{"p", "b", 2}, table.Replace); err != nil || !same || stored.ETag == "" {
		t.Fatalf("Verify: got %v, %+v, %v; want the insert committed, with the stored ETag", same, stored, err)
	}
}
