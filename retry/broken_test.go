package retry_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/devtools/faults"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/internal/errmap"
	"github.com/tablekit/tablekit/retry"
)

// TestBrokenResponses: a reply cut short or unparseable is a transport
// failure. Reads are retried until they get a whole reply, and typed as
// tablekit.ErrUnavailable when attempts run out; an insert whose echo is cut short
// is retried and its collision with itself reported as ambiguous.
func TestBrokenResponses(t *testing.T) {
	r := newRig(t)
	p := testPolicy(&events{})
	c := r.client(t, &p, noAzRetry)
	ctx := testenv.Ctx(t)
	if _, err := c.AddEntity(ctx, entityJSON(t, "p", "r", 1), nil); err != nil {
		t.Fatal(err)
	}
	get := func(ctx context.Context) error { _, err := c.GetEntity(ctx, "p", "r", nil); return err }
	list := func(ctx context.Context) error {
		_, err := c.NewListEntitiesPager(nil).NextPage(ctx)
		return err
	}
	// Inside Do the policy makes one attempt and still types the failure,
	// so Do can retry it.
	inDo := func(ctx context.Context) error {
		return retry.Do(ctx, &p, get)
	}
	n := 0
	insert := func(ctx context.Context) error {
		n++
		_, err := c.AddEntity(ctx, entityJSON(t, "p", fmt.Sprint("echo", n), 1), nil) // aztables asks for the echo
		return err
	}
	reads := faults.Method(http.MethodGet)
	once := func(f faults.Fault) []faults.Rule { return []faults.Rule{{Match: reads, Times: 1, Fault: f}} }
	always := func(f faults.Fault) []faults.Rule { return []faults.Rule{{Match: reads, Fault: f}} }
	tests := []struct {
		name     string
		call     func(context.Context) error
		rules    []faults.Rule
		attempts int   // requests the proxy saw
		want     error // nil: success
	}{
		{"get garbled once", get, once(faults.GarbleAfterForward()), 2, nil},
		{"get truncated once", get, once(faults.TruncateAfterForward()), 2, nil},
		{"query page garbled once", list, once(faults.GarbleAfterForward()), 2, nil},
		{"query page truncated once", list, once(faults.TruncateAfterForward()), 2, nil},
		{"get inside Do garbled once", inDo, once(faults.GarbleAfterForward()), 2, nil},
		{"get garbled always", get, always(faults.GarbleAfterForward()), p.MaxAttempts, tablekit.ErrUnavailable},
		{"get truncated always", get, always(faults.TruncateAfterForward()), p.MaxAttempts, tablekit.ErrUnavailable},
		{"insert echo truncated", insert, []faults.Rule{{Match: r.inserts(), Times: 1, Fault: faults.TruncateAfterForward()}}, 2, tablekit.ErrMaybeCommitted},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r.px.SetRules(tc.rules...)
			r.px.Reset()
			err := tc.call(testenv.Ctx(t))
			if tc.want == nil && err != nil {
				t.Fatalf("got %v, want success", err)
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want an error matching %v", err, tc.want)
			}
			if got := r.px.Count("/" + r.env.Account + "/" + r.name); got != tc.attempts {
				t.Errorf("requests: got %d, want %d", got, tc.attempts)
			}
		})
	}
	t.Run("exhausted read keeps status and cause", func(t *testing.T) {
		r.px.SetRules(always(faults.GarbleAfterForward())...)
		_, err := c.GetEntity(testenv.Ctx(t), "p", "r", nil)
		var b *errmap.Broken
		if !errors.As(err, &b) || b.StatusCode != http.StatusOK || b.Method != http.MethodGet || b.Err == nil {
			t.Fatalf("got %v, want a broken reply for GET 200 with its cause", err)
		}
		if !errors.Is(err, tablekit.ErrUnavailable) {
			t.Errorf("got %v, want it to match tablekit.ErrUnavailable too", err)
		}
	})
}
