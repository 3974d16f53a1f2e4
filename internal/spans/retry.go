package spans

import (
	"net/http"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/tracing"
)

// Event names of a retry. A retry because the service is busy is
// "throttled", so that throttling can be told from failures at a glance.
const (
	EventRetry     = "retry"
	EventThrottled = "throttled"
)

// Retry records, on s, that the attempt numbered attempt failed with an
// HTTP status and service error code (0 and "" for a transport error) and
// is retried after delay.
func (s *Span) Retry(attempt int, delay time.Duration, status int, code string) {
	if s == nil {
		return
	}
	s.retries.Add(1)
	name := EventRetry
	if Throttled(status, code) {
		name = EventThrottled
	}
	s.span.AddEvent(name,
		tracing.Attribute{Key: "tablekit.attempt", Value: attempt},
		tracing.Attribute{Key: "tablekit.delay_ms", Value: delay.Milliseconds()},
		tracing.Attribute{Key: "http.response.status_code", Value: status},
		tracing.Attribute{Key: "tablekit.error_code", Value: code},
	)
}

// Throttled reports an answer by which the service says it is too busy:
// 429, 503 (ServerBusy) and 500 OperationTimedOut, the answers the
// performance checklist says to back off from (tablekit.ErrThrottled).
func Throttled(status int, code string) bool {
	return status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable ||
		code == "ServerBusy" || code == "OperationTimedOut"
}
