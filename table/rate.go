package table

import (
	"context"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"

	"github.com/tablekit/tablekit/internal/errmap"
)

// DefaultPartitionRate is the writes to one partition, in entities a
// second, that a Service's limiter allows when Rate.PartitionEntitiesPerSecond
// is zero: the partition target of Table Storage, "2,000 entities (1 KB
// each) per second" (the performance and scalability checklist for Table
// storage, its "Targets for data operations"), so that a bulk writer does
// not pile its transactions on one partition.
const DefaultPartitionRate = 2000

// Rate is the throughput a Service keeps: every data request of its tables
// (point operations, transactions by their operations, query pages by the
// entities they return, and so batch.Write and parallel queries) draws from
// one limiter before it is sent, each attempt of a retry again. The zero
// Rate caps nothing until the service throttles, and writes to one
// partition at DefaultPartitionRate.
//
// The limiter adapts: a throttled answer (503 ServerBusy, 500
// OperationTimedOut, 429 on Cosmos DB) lowers the entity rate of every
// caller of the Service at once, to 0.8 of what it was (multiplicative
// decrease, at most once a second); each second of answers without
// throttling raises it by a twentieth of its cap (additive increase), up to
// EntitiesPerSecond. Retry's own backoff still applies to each request.
// With no cap, the rate is a guess until a second passes without a
// change: it starts from what was sent lately, throttled answers a quarter
// second apart lower it, and the first climb after it doubles its step
// each clean second, up to four steps.
type Rate struct {
	// EntitiesPerSecond caps the entities sent a second; zero means no cap
	// until the service throttles, when the rate starts from what was sent
	// lately.
	EntitiesPerSecond float64
	// RequestsPerSecond caps requests a second (attempts, whatever their
	// entities); zero means no cap. It does not adapt.
	RequestsPerSecond float64
	// PartitionEntitiesPerSecond caps the entities written to one partition
	// a second; zero means DefaultPartitionRate, a negative value no cap.
	// It does not adapt.
	PartitionEntitiesPerSecond float64
	// MinEntitiesPerSecond is the floor of the adaptive rate; default 10.
	MinEntitiesPerSecond float64
	// Fixed turns adaptation off: the rate stays EntitiesPerSecond.
	Fixed bool
	// OnChange, when set, is called after every change of the entity rate.
	// It may be called from many goroutines at once and must not block.
	OnChange func(RateEvent)
}

// RateEvent is a change of a Service's entity rate, for [Rate.OnChange].
type RateEvent struct {
	// EntitiesPerSecond is the rate from now on; Previous the rate before
	// (+Inf when there was no cap).
	EntitiesPerSecond, Previous float64
	// Throttled reports a decrease after a throttled answer; false is an
	// increase after a second of clean answers.
	Throttled bool
	// ThrottledAnswers is the number of throttled answers the Service has
	// had so far.
	ThrottledAnswers int64
}

// The adaptation's constants: the factor of a decrease, the interval
// between two changes (between two decreases while the rate is a guess),
// the part of the cap added each clean interval. The
// rate goes up and down between the factor and the account's rate, so the
// factor sets the average: 0.7 kept a bulk load at about 0.85 of what a
// busy account accepted, 0.8 at about 0.9, with a throttled answer every
// few seconds (batch's TestSoakRateConverges).
const (
	rateDecrease  = 0.8
	rateInterval  = time.Second
	guessInterval = time.Second / 4
	rateSteps     = 20
	maxProbe      = 4
	defaultMin    = 10
)

// check refuses rates that are negative (but for PartitionEntitiesPerSecond),
// NaN or infinite, before any request.
func (r *Rate) check() error {
	if r == nil {
		return nil
	}
	for _, f := range []struct {
		name     string
		v        float64
		negative bool
	}{
		{"Rate.EntitiesPerSecond", r.EntitiesPerSecond, false},
		{"Rate.RequestsPerSecond", r.RequestsPerSecond, false},
		{"Rate.PartitionEntitiesPerSecond", r.PartitionEntitiesPerSecond, true},
		{"Rate.MinEntitiesPerSecond", r.MinEntitiesPerSecond, false},
	} {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) || (f.v < 0 && !f.negative) {
			return errmap.Invalidf("", f.name, "must be a finite number >= 0, not %v", f.v)
		}
	}
	if r.Fixed && r.EntitiesPerSecond == 0 {
		return errmap.Invalid("", "Rate.Fixed", "needs Rate.EntitiesPerSecond")
	}
	return nil
}

// limiter is a Service's Rate at work. Its buckets are golang.org/x/time/rate
// limiters; reservations that a cancelled context gives up are returned.
type limiter struct {
	cfg      Rate // defaults resolved
	cap      float64
	step     float64
	requests *rate.Limiter // nil: no cap
	throttle atomic.Int64  // throttled answers

	mu           sync.Mutex
	entities     *rate.Limiter
	current      float64   // +Inf: no cap
	lastChange   time.Time // of the rate, either way
	lastDecrease time.Time
	// probe is the steps the next increase adds during the first climb
	// of a Service with no cap (doubling, up to maxProbe): its first rate
	// comes from a guess of what was sent, often far below what the
	// account takes. 0 once the climb met throttling: one step.
	probe float64
	// guess is set while a rate with no cap comes from an estimate (the
	// first throttled answers) and has not yet gone a second unchanged.
	guess bool
	parts map[string]*rate.Limiter
	// The estimate a guess starts from: the entities sent in the window
	// that began at winStart (zero until the first request), and in the
	// window before it.
	winStart     time.Time
	winN, prevN  float64
	prevDuration time.Duration
}

// newLimiter is nil for a nil Rate: the policy is then not installed.
func newLimiter(r *Rate) *limiter {
	if r == nil {
		return nil
	}
	l := &limiter{cfg: *r, cap: math.Inf(1), parts: map[string]*rate.Limiter{}}
	if l.cfg.PartitionEntitiesPerSecond == 0 {
		l.cfg.PartitionEntitiesPerSecond = DefaultPartitionRate
	}
	if l.cfg.MinEntitiesPerSecond == 0 {
		l.cfg.MinEntitiesPerSecond = defaultMin
	}
	if r.EntitiesPerSecond > 0 {
		l.cap = r.EntitiesPerSecond
		l.step = r.EntitiesPerSecond / rateSteps
	}
	l.current = l.cap
	l.entities = rate.NewLimiter(limitOf(l.current), burstOf(l.current))
	if r.RequestsPerSecond > 0 {
		l.requests = rate.NewLimiter(rate.Limit(r.RequestsPerSecond), max(1, int(r.RequestsPerSecond/10)))
	}
	return l
}

func limitOf(r float64) rate.Limit {
	if math.IsInf(r, 1) {
		return rate.Inf
	}
	return rate.Limit(r)
}

// burstOf is a bucket's size: a whole transaction (100 operations) fits,
// and a tenth of a second's entities, so that no one-second window takes
// much more than the rate.
func burstOf(r float64) int {
	if math.IsInf(r, 1) {
		return math.MaxInt32
	}
	return max(100, int(r/10))
}

// maxPartitions is the number of partition buckets kept before the full
// ones (no different from new ones) are dropped.
const maxPartitions = 4096

// wait draws n entities (and a request) from the buckets, partition's too
// when it is not empty, and waits for them unless ctx ends first: then it
// returns what it reserved and ctx's error. It returns how long it waited
// and the entity rate.
func (l *limiter) wait(ctx context.Context, n int, partition string) (time.Duration, float64, error) {
	var rs []*rate.Reservation
	// now is taken under the lock: a reservation at a time before the
	// bucket's last one would count the time between them twice.
	l.mu.Lock()
	now := time.Now()
	if l.requests != nil {
		rs = append(rs, l.requests.ReserveN(now, 1))
	}
	rs = reserve(rs, l.entities, now, n)
	if partition != "" && l.cfg.PartitionEntitiesPerSecond > 0 {
		p := l.parts[partition]
		if p == nil {
			if len(l.parts) >= maxPartitions {
				l.dropFull(now)
			}
			p = rate.NewLimiter(rate.Limit(l.cfg.PartitionEntitiesPerSecond), burstOf(l.cfg.PartitionEntitiesPerSecond))
			l.parts[partition] = p
		}
		rs = reserve(rs, p, now, n)
	}
	l.count(now, n)
	current := l.current
	l.mu.Unlock()

	var d time.Duration
	for _, r := range rs {
		d = max(d, r.DelayFrom(now))
	}
	if d <= 0 && ctx.Err() == nil {
		return 0, current, nil
	}
	if d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
			return d, current, nil
		case <-ctx.Done():
		}
	}
	for _, r := range rs {
		r.CancelAt(time.Now())
	}
	return 0, current, ctx.Err()
}

// reserve reserves n tokens of lim in parts no larger than its burst.
func reserve(rs []*rate.Reservation, lim *rate.Limiter, now time.Time, n int) []*rate.Reservation {
	for b := lim.Burst(); n > 0; n -= b {
		rs = append(rs, lim.ReserveN(now, min(n, b)))
	}
	return rs
}

// charge takes n more entities that a request turned out to cost (a query
// page's entities beyond the one it drew): later requests wait for them.
func (l *limiter) charge(n int) {
	if n <= 0 {
		return
	}
	l.mu.Lock()
	now := time.Now()
	reserve(nil, l.entities, now, n)
	l.count(now, n)
	l.mu.Unlock()
}

// dropFull forgets the partition buckets that are full again.
func (l *limiter) dropFull(now time.Time) {
	for k, p := range l.parts {
		if p.TokensAt(now) >= float64(p.Burst()) {
			delete(l.parts, k)
		}
	}
}

// count adds n entities sent to the estimate. A window is a second or
// more; one that saw nothing for a second, an idle Service's, is dropped:
// it says nothing of the rate now.
func (l *limiter) count(now time.Time, n int) {
	switch d := now.Sub(l.winStart); {
	case l.winStart.IsZero():
		l.winStart = now
	case d >= 2*rateInterval:
		l.prevN, l.prevDuration = 0, 0
		l.winN, l.winStart = 0, now
	case d >= rateInterval:
		l.prevN, l.prevDuration = l.winN, d
		l.winN, l.winStart = 0, now
	}
	l.winN += float64(n)
}

// sent estimates the entities sent a second lately, over the window and
// the one before: where the rate starts from when the service first
// throttles a Service with no cap.
func (l *limiter) sent(now time.Time) float64 {
	if l.winStart.IsZero() {
		return 0
	}
	span := l.prevDuration + now.Sub(l.winStart)
	return (l.prevN + l.winN) / max(span, 100*time.Millisecond).Seconds()
}

// observe adapts the entity rate to an answer: throttled or clean. It
// returns the event of a change, if any.
func (l *limiter) observe(throttled bool) (RateEvent, bool) {
	var answers int64
	if throttled {
		answers = l.throttle.Add(1)
	} else {
		answers = l.throttle.Load()
	}
	if l.cfg.Fixed {
		return RateEvent{}, false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now() // under the lock, as in wait
	prev := l.current
	guessing := math.IsInf(l.current, 1) || l.guess
	apart := rateInterval
	if guessing {
		apart = guessInterval
	}
	var next float64
	switch {
	case throttled && now.Sub(l.lastDecrease) < apart,
		!throttled && now.Sub(l.lastChange) < rateInterval:
		// in-flight answers to requests sent at the old rate
		return RateEvent{}, false
	case throttled:
		l.lastDecrease = now
		base := l.current
		if math.IsInf(base, 1) {
			base = l.sent(now)
		}
		next = min(l.cap, max(l.cfg.MinEntitiesPerSecond, base*rateDecrease))
		if math.IsInf(l.cap, 1) {
			l.step = max(1, next/rateSteps)
		}
		l.probe, l.guess = 0, false
		if guessing {
			l.probe, l.guess = 1, true
		}
	case !math.IsInf(l.current, 1) && l.current < l.cap:
		next = min(l.cap, l.current+l.step*max(1, l.probe))
		if l.probe > 0 {
			l.probe = min(maxProbe, 2*l.probe)
		}
		l.guess = false
	default:
		return RateEvent{}, false
	}
	if next == prev {
		return RateEvent{}, false // at the floor
	}
	l.current, l.lastChange = next, now
	l.entities.SetLimitAt(now, rate.Limit(next))
	l.entities.SetBurstAt(now, burstOf(next))
	return RateEvent{EntitiesPerSecond: next, Previous: prev, Throttled: throttled, ThrottledAnswers: answers}, true
}
