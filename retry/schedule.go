package retry

import (
	"context"
	"time"

	"github.com/cenkalti/backoff/v4"
)

// schedule decides, attempt after attempt, whether and how long to wait. One
// schedule serves one run of the retry loop (one call of Do, one request
// through the pipeline policy); it is not safe for concurrent use.
type schedule struct {
	p Policy // resolved
	// b is made at the first backoff: most calls succeed at once, and
	// need none.
	b           *backoff.ExponentialBackOff
	start       time.Time
	connRetried bool // the one immediate retry of a broken connection is used
}

// newSchedule starts the clock for one call; p must come from resolve.
func newSchedule(p Policy) schedule {
	return schedule{p: p, start: time.Now()}
}

func (s *schedule) backoff() *backoff.ExponentialBackOff {
	if s.b == nil {
		s.b = backoff.NewExponentialBackOff(
			backoff.WithInitialInterval(s.p.InitialInterval),
			backoff.WithMultiplier(s.p.Multiplier),
			backoff.WithMaxInterval(s.p.MaxInterval),
			backoff.WithRandomizationFactor(s.p.Jitter),
			// The elapsed budget is checked in next, on the final delay
			// (after Retry-After), so the backoff itself never stops.
			backoff.WithMaxElapsedTime(0),
		)
	}
	return s.b
}

// next returns the delay before the attempt after attempt (which failed
// with err, a retryable error), or false when the policy gives up: no
// attempts left, or the wait would end after MaxElapsed. connBroken says the
// failure was a broken or refused connection before any response, whose
// first occurrence is retried at once.
//
// A response that says when to come back (retryAfter) is retried after
// that wait, up to MaxInterval, whether it is shorter or longer than the
// backoff: the server knows when it has room again, as azcore's own retry
// policy and Cosmos DB's SDKs also assume. Waiting for the longer of the
// two instead made a 20 ms x-ms-retry-after-ms from Cosmos DB cost the
// 500 ms of the first backoff step. The backoff still advances, so that a
// later failure without a hint waits as long as it would have.
func (s *schedule) next(attempt int, err error, connBroken bool) (time.Duration, bool) {
	if attempt >= s.p.MaxAttempts {
		return 0, false
	}
	var d time.Duration
	if connBroken && !s.connRetried {
		s.connRetried = true
	} else {
		d = min(s.backoff().NextBackOff(), s.p.MaxInterval)
		if ra := retryAfter(headerOf(err), time.Now()); ra > 0 {
			d = min(ra, s.p.MaxInterval)
		}
	}
	if time.Since(s.start)+d > s.p.MaxElapsed {
		return 0, false
	}
	return d, true
}

// sleep waits for d or until ctx ends, whichever is first, and reports
// whether the whole delay passed.
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
