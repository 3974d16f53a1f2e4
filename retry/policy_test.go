package retry

import (
	"errors"
	"math"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/tablekit/tablekit/devtools/azerrors"
)

func TestDefaults(t *testing.T) {
	want := Policy{
		InitialInterval: 500 * time.Millisecond,
		Multiplier:      2,
		MaxInterval:     30 * time.Second,
		Jitter:          0.2,
		MaxAttempts:     5,
		MaxElapsed:      2 * time.Minute,
	}
	for name, p := range map[string]*Policy{"nil": nil, "zero": {}, "Default": ptr(Default())} {
		got := resolve(p)
		if got.Classify == nil {
			t.Errorf("%s: Classify is nil, want IsRetryable", name)
		}
		got.Classify = nil
		if !sameNumbers(got, want) {
			t.Errorf("%s: got %+v, want %+v", name, got, want)
		}
	}
	if d := Default(); d.Classify != nil || d.OnRetry != nil {
		t.Errorf("Default: funcs set, want nil")
	}
}

func TestResolveEdgeValues(t *testing.T) {
	in := Policy{InitialInterval: -1, Multiplier: 0.5, MaxInterval: -1, Jitter: -1, MaxAttempts: -3, MaxElapsed: -1}
	orig := in
	got := resolve(&in)
	if got.Multiplier != 1 || got.Jitter != 0 || got.InitialInterval != defaultInitialInterval ||
		got.MaxInterval != defaultMaxInterval || got.MaxAttempts != defaultMaxAttempts || got.MaxElapsed != defaultMaxElapsed {
		t.Errorf("resolve(%+v): got %+v", orig, got)
	}
	if !sameNumbers(in, orig) {
		t.Errorf("resolve mutated its argument: got %+v, want %+v", in, orig)
	}
	if got := resolve(&Policy{Jitter: 3}).Jitter; got != 1 {
		t.Errorf("Jitter 3: got %v, want 1", got)
	}
}

func TestChecklistSchedule(t *testing.T) {
	p := Checklist()
	p.Jitter = -1 // exact values
	s := newSchedule(resolve(&p))
	err := azerrors.Response(503, "ServerBusy", "PUT", "/t", nil)
	var got []time.Duration
	for attempt := 1; ; attempt++ {
		d, ok := s.next(attempt, err, false)
		if !ok {
			break
		}
		got = append(got, d)
	}
	want := []time.Duration{2 * time.Second, 5 * time.Second, 12500 * time.Millisecond, 30 * time.Second}
	if len(got) != len(want) {
		t.Fatalf("Checklist delays: got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("Checklist delay %d: got %v, want %v", i+1, got[i], want[i])
		}
	}
}

// TestBackoffBounds draws many schedules and checks each delay against
// [base*(1-j), min(base*(1+j), MaxInterval)], base = Initial*Multiplier^n
// capped at MaxInterval.
func TestBackoffBounds(t *testing.T) {
	tests := []Policy{
		Default(),
		{InitialInterval: 10 * time.Millisecond, Multiplier: 3, MaxInterval: 100 * time.Millisecond, Jitter: 0.5, MaxAttempts: 8, MaxElapsed: time.Hour},
		{InitialInterval: 50 * time.Millisecond, Multiplier: 1, Jitter: -1, MaxAttempts: 4},
		{InitialInterval: time.Second, MaxInterval: 300 * time.Millisecond, MaxAttempts: 4}, // Initial above Max
	}
	err := azerrors.Response(503, "ServerBusy", "PUT", "/t", nil)
	for i, p := range tests {
		r := resolve(&p)
		for range 200 {
			s := newSchedule(r)
			base := float64(r.InitialInterval)
			for attempt := 1; attempt < r.MaxAttempts; attempt++ {
				d, ok := s.next(attempt, err, false)
				if !ok {
					t.Fatalf("policy %d attempt %d: gave up early", i, attempt)
				}
				b := math.Min(base, float64(r.MaxInterval))
				lo := time.Duration(b * (1 - r.Jitter))
				hi := time.Duration(math.Min(b*(1+r.Jitter), float64(r.MaxInterval)))
				if d < lo-time.Microsecond || d > hi+time.Microsecond {
					t.Fatalf("policy %d attempt %d: delay %v, want within [%v, %v]", i, attempt, d, lo, hi)
				}
				base *= r.Multiplier
			}
			if _, ok := s.next(r.MaxAttempts, err, false); ok {
				t.Fatalf("policy %d: retried after attempt %d, want to give up", i, r.MaxAttempts)
			}
		}
	}
}

func TestScheduleConnectionErrorRetriesOnceAtOnce(t *testing.T) {
	p := resolve(&Policy{InitialInterval: 40 * time.Millisecond, Jitter: -1, MaxAttempts: 10})
	s := newSchedule(p)
	conn := azerrors.Conn("read", syscall.ECONNRESET)
	var got []time.Duration
	for attempt := 1; attempt <= 4; attempt++ {
		d, _ := s.next(attempt, conn, true)
		got = append(got, d)
	}
	want := []time.Duration{0, 40 * time.Millisecond, 80 * time.Millisecond, 160 * time.Millisecond}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("delays: got %v, want %v", got, want)
		}
	}
}

func TestScheduleRetryAfter(t *testing.T) {
	p := resolve(&Policy{InitialInterval: 10 * time.Millisecond, MaxInterval: 5 * time.Second, Jitter: -1})
	withHeader := func(h http.Header) error {
		err := azerrors.Response(429, "TooManyRequests", "PUT", "/t", nil)
		headerOf(err).Set("Retry-After", h.Get("Retry-After"))
		return err
	}
	s := newSchedule(p)
	if d, _ := s.next(1, withHeader(http.Header{"Retry-After": {"2"}}), false); d != 2*time.Second {
		t.Errorf("Retry-After 2: got %v, want 2s", d)
	}
	if d, _ := s.next(2, withHeader(http.Header{"Retry-After": {"60"}}), false); d != 5*time.Second {
		t.Errorf("Retry-After 60 with MaxInterval 5s: got %v, want 5s", d)
	}
	// Retry-After 0 asks for nothing: the backoff, which advanced with
	// every retry, hinted or not.
	if d, _ := s.next(3, withHeader(http.Header{"Retry-After": {"0"}}), false); d != 40*time.Millisecond {
		t.Errorf("Retry-After 0: got %v, want the backoff 40ms", d)
	}
	// A hint shorter than the backoff is the wait: Cosmos DB's 20 ms.
	ms := azerrors.Response(429, "TooManyRequests", "PUT", "/t", nil)
	headerOf(ms).Set("X-Ms-Retry-After-Ms", "20")
	if d, _ := s.next(4, ms, false); d != 20*time.Millisecond {
		t.Errorf("x-ms-retry-after-ms 20 with the backoff at 80ms: got %v, want 20ms", d)
	}
}

func TestScheduleMaxElapsed(t *testing.T) {
	p := resolve(&Policy{InitialInterval: 100 * time.Millisecond, Jitter: -1, MaxAttempts: 100, MaxElapsed: 250 * time.Millisecond})
	s := newSchedule(p)
	err := errors.New("x")
	if _, ok := s.next(1, err, false); !ok {
		t.Fatal("first retry (100ms of 250ms): gave up, want retry")
	}
	// 0 elapsed + 200ms still fits; then 400ms does not.
	if _, ok := s.next(2, err, false); !ok {
		t.Fatal("second retry (200ms of 250ms): gave up, want retry")
	}
	if d, ok := s.next(3, err, false); ok {
		t.Fatalf("third retry: got delay %v, want to give up (400ms > 250ms)", d)
	}
}

// sameNumbers compares the numeric fields of two policies.
func sameNumbers(a, b Policy) bool {
	return a.InitialInterval == b.InitialInterval && a.Multiplier == b.Multiplier &&
		a.MaxInterval == b.MaxInterval && a.Jitter == b.Jitter &&
		a.MaxAttempts == b.MaxAttempts && a.MaxElapsed == b.MaxElapsed
}

func ptr[T any](v T) *T { return &v }
