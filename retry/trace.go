package retry

import (
	"context"
	"time"

	"github.com/tablekit/tablekit/internal/spans"
)

// traceRetry adds the retry as an event to the tablekit span current in
// ctx (a transaction of batch.Write, a query page), so that a trace shows
// where time went waiting; the span counts it as an attempt. Without such
// a span it does nothing.
func traceRetry(ctx context.Context, attempt int, delay time.Duration, err error) {
	sp := spans.Current(ctx)
	if sp == nil {
		return
	}
	ev := newEvent(attempt, delay, err)
	sp.Retry(ev.Attempt, ev.Delay, ev.Status, ev.Code)
}
