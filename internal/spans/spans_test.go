package spans_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/tracing"

	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/internal/spans"
)

// TestDisabledCostsNothing: without a provider nothing is started, carried
// or allocated.
func TestDisabledCostsNothing(t *testing.T) {
	ctx := context.Background()
	var tr tracing.Tracer
	boom := errors.New("boom")
	allocs := testing.AllocsPerRun(100, func() {
		c, sp := spans.Start(ctx, tr, "x")
		spans.Current(c).Retry(1, time.Second, 503, "ServerBusy")
		if sp.Attempts() != 0 {
			t.Fatal("a disabled span counts attempts")
		}
		sp.End(boom)
	})
	if allocs != 0 {
		t.Errorf("disabled span: %v allocations, want 0", allocs)
	}
	if c, sp := spans.Start(ctx, tr, "x"); sp != nil || c != ctx {
		t.Errorf("disabled Start = %v, %v; want ctx unchanged and nil", c, sp)
	}
}

func TestSpanRecordsRetriesAndError(t *testing.T) {
	rec := &testenv.Tracer{}
	tr := rec.Provider().NewTracer("test", "")
	ctx, parent := spans.Start(context.Background(), tr, "parent")
	childCtx, child := spans.Start(ctx, tr, "child")
	if got := spans.Current(childCtx); got != child {
		t.Fatalf("Current = %p, want the child %p", got, child)
	}
	spans.Current(childCtx).Retry(1, 1500*time.Millisecond, http.StatusServiceUnavailable, "ServerBusy")
	spans.Current(childCtx).Retry(2, 0, 0, "")
	if got, want := child.Attempts(), 3; got != want {
		t.Errorf("child attempts = %d, want %d", got, want)
	}
	if got, want := parent.Attempts(), 1; got != want {
		t.Errorf("parent attempts = %d, want %d (retries go to the innermost span)", got, want)
	}
	child.End(errors.New("gave up"))
	parent.End(nil)

	got := rec.Spans()
	if len(got) != 2 {
		t.Fatalf("%d spans, want 2", len(got))
	}
	p, c := got[0], got[1]
	if c.Parent != p.ID || p.Parent != 0 {
		t.Errorf("parents: child %d (want %d), parent %d (want 0)", c.Parent, p.ID, p.Parent)
	}
	if !p.Ended || !c.Ended {
		t.Errorf("ended: parent %v, child %v; want both", p.Ended, c.Ended)
	}
	if c.Status != tracing.SpanStatusError || c.StatusDesc != "gave up" {
		t.Errorf("child status = %v %q, want error %q", c.Status, c.StatusDesc, "gave up")
	}
	if p.Status != tracing.SpanStatusUnset {
		t.Errorf("parent status = %v, want unset", p.Status)
	}
	wantEvents := []struct {
		name   string
		status int
		delay  int64
	}{{spans.EventThrottled, 503, 1500}, {spans.EventRetry, 0, 0}}
	if len(c.Events) != len(wantEvents) {
		t.Fatalf("child events = %+v, want %d", c.Events, len(wantEvents))
	}
	for i, w := range wantEvents {
		e := c.Events[i]
		if e.Name != w.name || e.Attrs["http.response.status_code"] != w.status || e.Attrs["tablekit.delay_ms"] != w.delay || e.Attrs["tablekit.attempt"] != i+1 {
			t.Errorf("event %d = %s %v, want %s with status %d, delay %d, attempt %d", i, e.Name, e.Attrs, w.name, w.status, w.delay, i+1)
		}
	}
}

func TestThrottled(t *testing.T) {
	tests := []struct {
		status int
		code   string
		want   bool
	}{
		{503, "ServerBusy", true},
		{503, "", true},
		{429, "", true},
		{500, "OperationTimedOut", true},
		{500, "InternalError", false},
		{0, "", false},
		{409, "EntityAlreadyExists", false},
	}
	for _, tt := range tests {
		if got := spans.Throttled(tt.status, tt.code); got != tt.want {
			t.Errorf("Throttled(%d, %q) = %v, want %v", tt.status, tt.code, got, tt.want)
		}
	}
}
