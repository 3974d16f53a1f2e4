package faults

import (
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"time"
)

// Rule injects Fault into requests that Match accepts.
//
// Rules are checked in order and the first one that fires wins. Rules with a
// Probability share a single random roll per request, so their chances are
// disjoint: rules of 0.10 and 0.03 fire on 10% and 3% of the requests they
// both match (as long as the probabilities add up to at most 1).
type Rule struct {
	// Match selects requests; nil matches every request. It is called once
	// per request and rule, possibly concurrently, and must not read the
	// body. Tests may use it to observe requests (arrival time, headers).
	Match func(*http.Request) bool
	// Probability is the chance that a matching request gets the fault;
	// zero (or 1 and above) means every matching request.
	Probability float64
	// Times limits the rule to its first Times firings; zero means no limit.
	Times int
	// Fault is what happens to a request when the rule fires.
	Fault Fault
}

// ruleState is a rule with its firing count; SetRules makes fresh ones.
type ruleState struct {
	Rule
	fired atomic.Int64
}

// Method matches requests with one of the given methods.
func Method(methods ...string) func(*http.Request) bool {
	return func(r *http.Request) bool { return slices.Contains(methods, r.Method) }
}

// PathContains matches requests whose URL path contains s.
func PathContains(s string) func(*http.Request) bool {
	return func(r *http.Request) bool { return strings.Contains(r.URL.Path, s) }
}

// And matches requests that every matcher accepts.
func And(matchers ...func(*http.Request) bool) func(*http.Request) bool {
	return func(r *http.Request) bool {
		for _, m := range matchers {
			if m != nil && !m(r) {
				return false
			}
		}
		return true
	}
}

type faultKind int

const (
	kindNone faultKind = iota
	kindStatus
	kindResetBeforeForward
	kindDropAfterForward
	kindLatency
	kindTruncateAfterForward
	kindGarbleAfterForward
	kindGarbleMiddleAfterForward
	kindContinuation
)

// Fault is what the proxy does to a request instead of (or besides)
// forwarding it. Make one with [Status], [ResetBeforeForward],
// [DropAfterForward], [TruncateAfterForward], [GarbleAfterForward],
// [GarbleContinuation], [ContinuationTo] or [Latency]; the zero Fault
// forwards unchanged.
type Fault struct {
	kind   faultKind
	status int
	code   string
	header http.Header
	delay  time.Duration
	cont   Continuation
	pk, rk string // ContinuationTo's key
}

// Status answers with the HTTP status code and an Azure Table error body
// ({"odata.error":{"code":azureCode,"message":{...}}}) without forwarding.
// header is added to the response (for example Retry-After); it may be nil.
// With an empty azureCode the response has no body.
func Status(code int, azureCode string, header http.Header) Fault {
	return Fault{kind: kindStatus, status: code, code: azureCode, header: header.Clone()}
}

// ResetBeforeForward reads the request and then resets the client's
// connection (TCP RST) without forwarding: the service never sees it.
func ResetBeforeForward() Fault { return Fault{kind: kindResetBeforeForward} }

// DropAfterForward forwards the request, waits for the service's complete
// response (the service has committed the change), discards it and resets
// the client's connection: the client cannot know the request succeeded.
func DropAfterForward() Fault { return Fault{kind: kindDropAfterForward} }

// TruncateAfterForward forwards the request, waits for the service's
// complete response (the change is committed), sends the client its status,
// headers (the original Content-Length included) and the first half of its
// body, then closes the connection: a reply cut short.
func TruncateAfterForward() Fault { return Fault{kind: kindTruncateAfterForward} }

// GarbleAfterForward forwards the request and sends the client the service's
// status and headers with a body of the same length that is neither JSON nor
// multipart: a reply that arrives whole but cannot be parsed.
func GarbleAfterForward() Fault { return Fault{kind: kindGarbleAfterForward} }

// GarbleMiddleAfterForward is GarbleAfterForward with only the middle
// third of the body replaced: the reply starts as the service's did, so a
// reader that parses as it goes meets the damage deep inside it (in a query
// page, inside an entity after whole ones).
func GarbleMiddleAfterForward() Fault { return Fault{kind: kindGarbleMiddleAfterForward} }

// Latency waits d and then forwards the request normally.
func Latency(d time.Duration) Fault { return Fault{kind: kindLatency, delay: d} }

// String names the fault for test logs.
func (f Fault) String() string {
	switch f.kind {
	case kindStatus:
		return "status " + http.StatusText(f.status) + " " + f.code
	case kindResetBeforeForward:
		return "reset before forward"
	case kindDropAfterForward:
		return "drop after forward"
	case kindTruncateAfterForward:
		return "truncate after forward"
	case kindGarbleAfterForward:
		return "garble after forward"
	case kindGarbleMiddleAfterForward:
		return "garble the middle after forward"
	case kindLatency:
		return "latency " + f.delay.String()
	case kindContinuation:
		if f.cont == 0 {
			return "continuation to a chosen key"
		}
		return "continuation " + f.cont.String()
	}
	return "none"
}
