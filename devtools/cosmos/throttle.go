package cosmos

import (
	"math"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"
)

// Throttle answers matching requests 429 "Request rate is large", as Cosmos
// DB does when a request would exceed the provisioned throughput.
type Throttle struct {
	// Match selects requests; nil matches every request. It must not read
	// the body. Matchers from devtools/faults (Method, PathContains, And)
	// fit.
	Match func(*http.Request) bool
	// Times limits the rule to its first Times firings; zero means no limit.
	Times int
	// RetryAfter is sent as x-ms-retry-after-ms. Zero leaves the header
	// out, as Cosmos DB Table endpoints have been seen to do
	// (azure-sdk-for-net #13554).
	RetryAfter time.Duration
	// InBody answers a $batch 202 Accepted with the throttling inside the
	// changeset (the first operation 429, the others 424 Failed
	// Dependency) instead of a 429 for the whole request. That Cosmos DB
	// does this is an inference from yevhen/Streamstone #41 (a Cosmos DB
	// table's throttling surfaced as "Element 0 in the batch returned an
	// unexpected response code" with status 429); other requests get a 429.
	InBody bool
}

type throttleState struct {
	Throttle
	fired atomic.Int64
}

// SetThrottle replaces the throttle rules; their Times budgets start from
// zero. Rules are checked in order; the first that fires wins.
func (s *Server) SetThrottle(rules ...Throttle) {
	rs := make([]*throttleState, len(rules))
	for i, r := range rules {
		rs[i] = &throttleState{Throttle: r}
	}
	s.mu.Lock()
	s.throttles = rs
	s.mu.Unlock()
}

// SetThroughput throttles by rate, as provisioned throughput does: each
// request takes one unit from a bucket that refills perSecond units a
// second up to burst; a request that finds it empty gets 429 with
// x-ms-retry-after-ms saying when the next unit is there. Zero perSecond
// turns it off. Throttle rules are checked first.
func (s *Server) SetThroughput(perSecond float64, burst int) {
	var b *bucket
	if perSecond > 0 {
		b = &bucket{rate: perSecond, burst: float64(max(burst, 1)), tokens: float64(max(burst, 1)), last: time.Now()}
	}
	s.mu.Lock()
	s.budget = b
	s.mu.Unlock()
}

// bucket is a token bucket; the Server's mutex guards it.
type bucket struct {
	rate, burst, tokens float64
	last                time.Time
}

// take takes a unit, or says how long until one is there.
func (b *bucket) take(now time.Time) (time.Duration, bool) {
	b.tokens = math.Min(b.burst, b.tokens+now.Sub(b.last).Seconds()*b.rate)
	b.last = now
	if b.tokens >= 1 {
		b.tokens--
		return 0, true
	}
	return time.Duration((1 - b.tokens) / b.rate * float64(time.Second)), false
}

// throttled picks the throttling for r, if any.
func (s *Server) throttled(r *http.Request) (Throttle, bool) {
	s.mu.Lock()
	rules := s.throttles
	s.mu.Unlock()
	for _, t := range rules {
		if t.Match != nil && !t.Match(r) {
			continue
		}
		if n := t.fired.Add(1); t.Times > 0 && n > int64(t.Times) {
			t.fired.Add(-1)
			continue
		}
		return t.Throttle, true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.budget == nil {
		return Throttle{}, false
	}
	wait, ok := s.budget.take(time.Now())
	if ok {
		return Throttle{}, false
	}
	return Throttle{RetryAfter: max(wait, time.Millisecond)}, true
}

// writeThrottle answers a throttled request.
func (s *Server) writeThrottle(w http.ResponseWriter, r *http.Request, body []byte, t Throttle) {
	s.bump(func(st *Stats) *int { return &st.Throttled })
	ms := ""
	if t.RetryAfter > 0 {
		ms = strconv.FormatInt(int64(math.Ceil(float64(t.RetryAfter)/float64(time.Millisecond))), 10)
	}
	if t.InBody && r.Method == http.MethodPost && parsePath(r.URL.Path).table == "$batch" {
		n := 1
		if ops, err := parseBatch(r.Header.Get("Content-Type"), body); err == nil && len(ops.ops) > 0 {
			n = len(ops.ops)
		}
		writeBatchFailure(w, n, 0, http.StatusTooManyRequests, codeThrottled, msgThrottled, ms)
		return
	}
	if ms != "" {
		w.Header().Set("x-ms-retry-after-ms", ms)
	}
	writeError(w, http.StatusTooManyRequests, codeThrottled, msgThrottled)
}
