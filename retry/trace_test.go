package retry_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/internal/spans"
	"github.com/tablekit/tablekit/retry"
)

// TestRetriesAreSpanEvents: each retry becomes an event of the tablekit span
// in the context, throttling told apart, and the span counts the attempts.
func TestRetriesAreSpanEvents(t *testing.T) {
	rec := &testenv.Tracer{}
	ctx, sp := spans.Start(context.Background(), rec.Provider().NewTracer("test", ""), "op")
	p := retry.Policy{InitialInterval: 2 * time.Millisecond, Jitter: -1, MaxAttempts: 4}
	reset := resetErr(&http.Request{Method: http.MethodPut, URL: &url.URL{Scheme: "http", Host: "h", Path: "/t1"}})
	results := []error{reset, errBusy, nil}
	calls := 0
	if err := retry.Do(ctx, &p, func(context.Context) error { calls++; return results[calls-1] }); err != nil {
		t.Fatalf("Do: %v", err)
	}
	if got, want := sp.Attempts(), 3; got != want {
		t.Errorf("attempts = %d, want %d", got, want)
	}
	sp.End(nil)
	want := []struct {
		name   string
		status int
		code   string
	}{{spans.EventRetry, 0, ""}, {spans.EventThrottled, 503, "ServerBusy"}}
	got := rec.Spans()[0].Events
	if len(got) != len(want) {
		t.Fatalf("events = %+v, want %d", got, len(want))
	}
	for i, w := range want {
		if got[i].Name != w.name || got[i].Attrs["http.response.status_code"] != w.status || got[i].Attrs["tablekit.error_code"] != w.code {
			t.Errorf("event %d = %s %v, want %s with status %d, code %q", i, got[i].Name, got[i].Attrs, w.name, w.status, w.code)
		}
	}
}
