package spans

import (
	"math"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/tracing"
)

// Event names of a Service's rate limiter: a request held back, and the
// rate changed by the service's answers.
const (
	EventRateWait   = "rate.wait"
	EventRateChange = "rate.change"
)

// RateWait records, on s, that a request waited delay for the Service's
// limiter, whose entity rate was entitiesPerSecond (-1 for no cap).
func (s *Span) RateWait(delay time.Duration, entitiesPerSecond float64) {
	if s == nil {
		return
	}
	s.span.AddEvent(EventRateWait,
		tracing.Attribute{Key: "tablekit.delay_ms", Value: delay.Milliseconds()},
		tracing.Attribute{Key: "tablekit.rate", Value: rateValue(entitiesPerSecond)},
	)
}

// RateChange records, on s, that the answer to its request changed the
// Service's entity rate to entitiesPerSecond; throttled is the number of
// throttled answers the Service has had.
func (s *Span) RateChange(entitiesPerSecond float64, throttled int64) {
	if s == nil {
		return
	}
	s.span.AddEvent(EventRateChange,
		tracing.Attribute{Key: "tablekit.rate", Value: rateValue(entitiesPerSecond)},
		tracing.Attribute{Key: ThrottledRetries, Value: throttled},
	)
}

// rateValue is a rate as a span attribute: whole entities a second, -1 for
// no cap (+Inf has no JSON form in exporters).
func rateValue(r float64) int64 {
	if math.IsInf(r, 1) {
		return -1
	}
	return int64(math.Round(r))
}
