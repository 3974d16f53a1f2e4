package retry_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/devtools/faults"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/retry"
)

var noAzRetry = policy.RetryOptions{MaxRetries: -1}

// TestPermanentCodesReachServerOnce: a failure that cannot succeed is sent
// exactly once.
func TestPermanentCodesReachServerOnce(t *testing.T) {
	r := newRig(t)
	var ev events
	p := retry.Policy{InitialInterval: 10 * time.Millisecond, OnRetry: ev.hook}
	c := r.client(t, &p, noAzRetry)
	tests := []struct {
		status int
		code   string
	}{
		{400, "InvalidInput"}, {401, "AuthenticationFailed"}, {403, "AuthorizationFailure"},
		{404, "ResourceNotFound"}, {405, "UnsupportedHttpVerb"}, {409, "EntityAlreadyExists"},
		{409, "TableBeingDeleted"}, // only retried on Create Table
		{411, "MissingContentLengthHeader"}, {412, "UpdateConditionNotSatisfied"},
		{413, "RequestBodyTooLarge"}, {415, "AtomFormatNotSupported"},
		{501, "NotImplemented"}, {505, "UnsupportedHttpVersion"},
	}
	for i, tc := range tests {
		t.Run(fmt.Sprintf("%d_%s", tc.status, tc.code), func(t *testing.T) {
			rk := fmt.Sprintf("perm%d", i)
			r.px.SetRules(faults.Rule{Match: r.writes(nil), Fault: faults.Status(tc.status, tc.code, nil)})
			_, err := c.UpsertEntity(testenv.Ctx(t), entityJSON(t, "p", rk, i), nil)
			var re *azcore.ResponseError
			if !errors.As(err, &re) {
				t.Fatalf("got %v, want *azcore.ResponseError", err)
			}
			if re.StatusCode != tc.status || re.ErrorCode != tc.code {
				t.Errorf("got %d %s, want %d %s", re.StatusCode, re.ErrorCode, tc.status, tc.code)
			}
			if got, want := r.px.Count(r.entityPath("p", rk)), 1; got != want {
				t.Errorf("requests: got %d, want %d", got, want)
			}
		})
	}
	if got := len(ev.all()); got != 0 {
		t.Errorf("retries: got %d, want 0", got)
	}
}

// retryable lists the failures that must be retried, as proxy faults.
var retryable = []struct {
	name  string
	fault faults.Fault
	conn  bool // a broken connection: first retry at once
}{
	{"408", faults.Status(408, "OperationTimedOut", nil), false},
	{"429", faults.Status(429, "TooManyRequests", nil), false},
	{"500", faults.Status(500, "OperationTimedOut", nil), false},
	{"502", faults.Status(502, "BadGateway", nil), false},
	{"503", faults.Status(503, "ServerBusy", nil), false},
	{"504", faults.Status(504, "GatewayTimeout", nil), false},
	{"reset", faults.ResetBeforeForward(), true},
	{"drop", faults.DropAfterForward(), true},
}

// checkDelays verifies each retry's delay against the policy (Initial 20ms,
// Multiplier 2, Jitter 0.2, MaxInterval 1s) and that the proxy saw the
// attempts at least that far apart.
func checkDelays(t *testing.T, evs []retry.Event, gaps []time.Duration, conn bool) {
	t.Helper()
	if len(gaps) != len(evs) {
		t.Fatalf("attempt gaps: got %d, want %d (one per retry)", len(gaps), len(evs))
	}
	base := 20 * time.Millisecond
	for i, e := range evs {
		if e.Attempt != i+1 {
			t.Errorf("event %d: attempt got %d, want %d", i, e.Attempt, i+1)
		}
		if conn && i == 0 {
			if e.Delay != 0 {
				t.Errorf("first retry of a broken connection: delay got %v, want 0", e.Delay)
			}
			continue
		}
		lo, hi := time.Duration(float64(base)*0.8), time.Duration(float64(base)*1.2)
		if e.Delay < lo || e.Delay > hi {
			t.Errorf("retry %d: delay got %v, want within [%v, %v]", i+1, e.Delay, lo, hi)
		}
		if gaps[i] < e.Delay {
			t.Errorf("retry %d: attempts %v apart, want at least the delay %v", i+1, gaps[i], e.Delay)
		}
		base *= 2
	}
}

func testPolicy(ev *events) retry.Policy {
	return retry.Policy{InitialInterval: 20 * time.Millisecond, Multiplier: 2, MaxInterval: time.Second,
		Jitter: 0.2, MaxAttempts: 4, OnRetry: ev.hook}
}

// TestRetryableUntilSuccess: two failures, then the third attempt succeeds
// and the entity is stored.
func TestRetryableUntilSuccess(t *testing.T) {
	r := newRig(t)
	for i, tc := range retryable {
		t.Run(tc.name, func(t *testing.T) {
			var ev events
			p := testPolicy(&ev)
			c := r.client(t, &p, noAzRetry)
			var rec arrivals
			r.px.SetRules(faults.Rule{Match: r.writes(&rec), Times: 2, Fault: tc.fault})
			rk := "ok" + tc.name
			if _, err := c.UpsertEntity(testenv.Ctx(t), entityJSON(t, "p", rk, i), nil); err != nil {
				t.Fatalf("UpsertEntity: %v", err)
			}
			if got, want := r.px.Count(r.entityPath("p", rk)), 3; got != want {
				t.Errorf("requests: got %d, want %d", got, want)
			}
			if got := r.stored(t, "p", rk)["Value"]; got != float64(i) {
				t.Errorf("stored Value: got %v, want %d", got, i)
			}
			evs := ev.all()
			if len(evs) != 2 {
				t.Fatalf("retries: got %d, want 2", len(evs))
			}
			checkDelays(t, evs, rec.gaps(), tc.conn)
		})
	}
}

// TestRetryableUntilLimit: the failure persists; the policy makes exactly
// MaxAttempts attempts and returns the last failure.
func TestRetryableUntilLimit(t *testing.T) {
	r := newRig(t)
	for _, tc := range retryable {
		t.Run(tc.name, func(t *testing.T) {
			var ev events
			p := testPolicy(&ev)
			c := r.client(t, &p, noAzRetry)
			var rec arrivals
			r.px.SetRules(faults.Rule{Match: r.writes(&rec), Fault: tc.fault})
			rk := "limit" + tc.name
			_, err := c.UpsertEntity(testenv.Ctx(t), entityJSON(t, "p", rk, 1), nil)
			if got, want := r.px.Count(r.entityPath("p", rk)), 4; got != want {
				t.Errorf("requests: got %d, want %d", got, want)
			}
			if tc.conn {
				if !errors.Is(err, tablekit.ErrMaybeCommitted) || !errors.Is(err, syscall.ECONNRESET) {
					t.Errorf("got %v, want tablekit.ErrMaybeCommitted wrapping a connection reset", err)
				}
			} else {
				var re *azcore.ResponseError
				if !errors.As(err, &re) || fmt.Sprint(re.StatusCode) != tc.name {
					t.Errorf("got %v, want aztables' *azcore.ResponseError %s", err, tc.name)
				}
			}
			evs := ev.all()
			if len(evs) != 3 {
				t.Fatalf("retries: got %d, want 3", len(evs))
			}
			checkDelays(t, evs, rec.gaps(), tc.conn)
		})
	}
}

func TestTableBeingDeletedRetriedOnCreate(t *testing.T) {
	r := newRig(t)
	var ev events
	p := testPolicy(&ev)
	name := testenv.TableName(t)
	c := r.clientFor(t, name, &p, noAzRetry, nil)
	r.px.SetRules(faults.Rule{Match: faults.And(faults.Method(http.MethodPost), faults.PathContains("/Tables")), Times: 2,
		Fault: faults.Status(409, "TableBeingDeleted", nil)})
	if _, err := c.CreateTable(testenv.Ctx(t), nil); err != nil {
		t.Fatalf("CreateTable: %v", err)
	}
	t.Cleanup(func() { _, _ = r.env.Client(t, name, nil).Delete(context.Background(), nil) })
	if got, want := r.px.Count("POST /"+r.env.Account+"/Tables"), 3; got != want {
		t.Errorf("requests: got %d, want %d", got, want)
	}
	if got, want := len(ev.all()), 2; got != want {
		t.Errorf("retries: got %d, want %d", got, want)
	}
}

// TestRetryAfterMeasured: the client waits at least what the server asks,
// and every attempt is signed anew (x-ms-date moves on).
func TestRetryAfterMeasured(t *testing.T) {
	r := newRig(t)
	tests := []struct {
		name   string
		header http.Header
		max    time.Duration // the policy's MaxInterval
		min    time.Duration
	}{
		{"Retry-After seconds", http.Header{"Retry-After": {"1"}}, 5 * time.Second, time.Second},
		// A date an hour ahead, however long the setup took: the wait is
		// the policy's cap, where a date not read as one would give the
		// 10 ms backoff. TestRetryAfter checks the arithmetic of dates.
		{"Retry-After date", http.Header{"Retry-After": {time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)}}, time.Second, time.Second},
		{"retry-after-ms", http.Header{"Retry-After-Ms": {"400"}}, 5 * time.Second, 400 * time.Millisecond},
		{"x-ms-retry-after-ms", http.Header{"X-Ms-Retry-After-Ms": {"400"}}, 5 * time.Second, 400 * time.Millisecond},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var ev events
			p := retry.Policy{InitialInterval: 10 * time.Millisecond, MaxInterval: tc.max, OnRetry: ev.hook}
			c := r.client(t, &p, noAzRetry)
			var rec arrivals
			r.px.SetRules(faults.Rule{Match: r.writes(&rec), Times: 1, Fault: faults.Status(429, "TooManyRequests", tc.header)})
			if _, err := c.UpsertEntity(testenv.Ctx(t), entityJSON(t, "p", fmt.Sprint("ra", i), i), nil); err != nil {
				t.Fatalf("UpsertEntity: %v", err)
			}
			gaps := rec.gaps()
			if len(gaps) != 1 {
				t.Fatalf("attempts: got %d, want 2", len(gaps)+1)
			}
			if gaps[0] < tc.min {
				t.Errorf("retried after %v, want at least %v", gaps[0], tc.min)
			}
			if evs := ev.all(); len(evs) != 1 || evs[0].Delay < tc.min {
				t.Errorf("events: got %+v, want one with delay >= %v", evs, tc.min)
			}
			if tc.min >= time.Second && rec.dates[0] == rec.dates[1] {
				t.Errorf("x-ms-date: both attempts %q, want the retry signed anew", rec.dates[0])
			}
		})
	}
	t.Run("capped by MaxInterval", func(t *testing.T) {
		var ev events
		p := retry.Policy{InitialInterval: 10 * time.Millisecond, MaxInterval: 300 * time.Millisecond, OnRetry: ev.hook}
		c := r.client(t, &p, noAzRetry)
		r.px.SetRules(faults.Rule{Match: r.writes(nil), Times: 1, Fault: faults.Status(503, "ServerBusy", http.Header{"Retry-After": {"3600"}})})
		if _, err := c.UpsertEntity(testenv.Ctx(t), entityJSON(t, "p", "racap", 1), nil); err != nil {
			t.Fatalf("UpsertEntity: %v", err)
		}
		if evs := ev.all(); len(evs) != 1 || evs[0].Delay != 300*time.Millisecond {
			t.Errorf("events: got %+v, want one with delay 300ms (MaxInterval)", evs)
		}
	})
}

// TestCancelStopsAtOnce: a canceled or expired context ends the retries
// without waiting out the backoff, and no further attempt is made.
func TestCancelStopsAtOnce(t *testing.T) {
	r := newRig(t)
	slow := retry.Policy{InitialInterval: 30 * time.Second, MaxInterval: 30 * time.Second}
	t.Run("cancel during backoff", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		p := slow
		p.OnRetry = func(retry.Event) { time.AfterFunc(100*time.Millisecond, cancel) }
		c := r.client(t, &p, noAzRetry)
		r.px.SetRules(faults.Rule{Match: r.writes(nil), Fault: faults.Status(503, "ServerBusy", nil)})
		start := time.Now()
		_, err := c.UpsertEntity(ctx, entityJSON(t, "p", "cancel1", 1), nil)
		if got := time.Since(start); got > 10*time.Second {
			t.Errorf("returned after %v, want well before the 30s backoff", got)
		}
		var re *azcore.ResponseError
		if !errors.Is(err, context.Canceled) || !errors.As(err, &re) || re.StatusCode != 503 {
			t.Errorf("got %v, want context.Canceled with the 503 reachable", err)
		}
		if got, want := r.px.Count(r.entityPath("p", "cancel1")), 1; got != want {
			t.Errorf("requests: got %d, want %d", got, want)
		}
	})
	t.Run("deadline during backoff", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		p := slow
		c := r.client(t, &p, noAzRetry)
		r.px.SetRules(faults.Rule{Match: r.writes(nil), Fault: faults.Status(500, "OperationTimedOut", nil)})
		start := time.Now()
		_, err := c.UpsertEntity(ctx, entityJSON(t, "p", "cancel2", 1), nil)
		if got := time.Since(start); got > 10*time.Second {
			t.Errorf("returned after %v, want at the deadline", got)
		}
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("got %v, want DeadlineExceeded", err)
		}
		if got, want := r.px.Count(r.entityPath("p", "cancel2")), 1; got != want {
			t.Errorf("requests: got %d, want %d", got, want)
		}
	})
	t.Run("deadline during a request", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		p := slow
		c := r.client(t, &p, noAzRetry)
		r.px.SetRules(faults.Rule{Match: r.writes(nil), Fault: faults.Latency(time.Minute)})
		start := time.Now()
		_, err := c.UpsertEntity(ctx, entityJSON(t, "p", "cancel3", 1), nil)
		if got := time.Since(start); got > 10*time.Second {
			t.Errorf("returned after %v, want at the deadline", got)
		}
		if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, tablekit.ErrUnavailable) {
			t.Errorf("got %v, want DeadlineExceeded", err)
		}
		if got, want := r.px.Count(r.entityPath("p", "cancel3")), 1; got != want {
			t.Errorf("requests: got %d, want %d", got, want)
		}
	})
}

// TestAzcoreRetryIsOff: with the policy installed, attempts equal the
// policy's MaxAttempts. The control shows that azcore's retry is live in
// this setup (4 attempts of its own), so the other counts mean something:
// with azcore's retry on under ours, 3 attempts would become 12.
func TestAzcoreRetryIsOff(t *testing.T) {
	r := newRig(t)
	azcoreOn := policy.RetryOptions{RetryDelay: 5 * time.Millisecond, MaxRetryDelay: 20 * time.Millisecond} // MaxRetries 0 = 3 retries
	p := retry.Policy{InitialInterval: 5 * time.Millisecond, MaxAttempts: 3}
	tests := []struct {
		name string
		p    *retry.Policy
		opts policy.RetryOptions
		want int
	}{
		{"control: azcore retry alone", nil, azcoreOn, 4},
		{"policy with MaxRetries -1", &p, noAzRetry, 3},
		{"policy with azcore retry left on", &p, azcoreOn, 3},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := r.client(t, tc.p, tc.opts)
			r.px.SetRules(faults.Rule{Match: r.writes(nil), Fault: faults.Status(503, "ServerBusy", nil)})
			rk := fmt.Sprint("az", i)
			if _, err := c.UpsertEntity(testenv.Ctx(t), entityJSON(t, "p", rk, 1), nil); err == nil {
				t.Fatal("got nil error, want 503")
			}
			if got := r.px.Count(r.entityPath("p", rk)); got != tc.want {
				t.Errorf("requests: got %d, want %d", got, tc.want)
			}
		})
	}
}

// TestAmbiguousInsert: the first insert is committed but its response is
// lost; the retry's 409 is reported as ambiguous, not as a conflict.
func TestAmbiguousInsert(t *testing.T) {
	r := newRig(t)
	p := testPolicy(&events{})
	c := r.client(t, &p, noAzRetry)

	t.Run("committed, response lost", func(t *testing.T) {
		r.px.SetRules(faults.Rule{Match: r.inserts(), Times: 1, Fault: faults.DropAfterForward()})
		r.px.Reset()
		_, err := c.AddEntity(testenv.Ctx(t), entityJSON(t, "p", "amb1", 7), nil)
		if !errors.Is(err, tablekit.ErrMaybeCommitted) {
			t.Fatalf("got %v, want tablekit.ErrMaybeCommitted", err)
		}
		var ae *tablekit.MaybeCommittedError
		var re *azcore.ResponseError
		if !errors.As(err, &ae) || ae.Attempts != 2 || !errors.As(err, &re) || re.StatusCode != 409 || re.ErrorCode != "EntityAlreadyExists" {
			t.Errorf("got %v, want AmbiguousError{Attempts: 2} wrapping 409 EntityAlreadyExists", err)
		}
		if strings.Contains(err.Error(), "sig=") {
			t.Errorf("error text leaks a query: %v", err)
		}
		if got, want := r.px.Count("POST /"+r.env.Account+"/"+r.name), 2; got != want {
			t.Errorf("requests: got %d, want %d", got, want)
		}
		if got := r.stored(t, "p", "amb1")["Value"]; got != float64(7) {
			t.Errorf("stored Value: got %v, want 7 (the first attempt committed)", got)
		}
	})
	t.Run("reset before the server", func(t *testing.T) {
		r.px.SetRules(faults.Rule{Match: r.inserts(), Times: 1, Fault: faults.ResetBeforeForward()})
		if _, err := c.AddEntity(testenv.Ctx(t), entityJSON(t, "p", "amb2", 1), nil); err != nil {
			t.Fatalf("got %v, want success (the first attempt never reached the server)", err)
		}
	})
	t.Run("genuine conflict", func(t *testing.T) {
		r.px.SetRules()
		_, err := c.AddEntity(testenv.Ctx(t), entityJSON(t, "p", "amb2", 2), nil)
		var re *azcore.ResponseError
		if errors.Is(err, tablekit.ErrMaybeCommitted) || !errors.As(err, &re) || re.StatusCode != 409 {
			t.Errorf("got %v, want a plain 409", err)
		}
	})
	t.Run("through Do", func(t *testing.T) {
		plain := r.client(t, nil, noAzRetry)
		r.px.SetRules(faults.Rule{Match: r.inserts(), Times: 1, Fault: faults.DropAfterForward()})
		err := retry.Do(testenv.Ctx(t), &p, func(ctx context.Context) error {
			_, err := plain.AddEntity(ctx, entityJSON(t, "p", "amb3", 3), nil)
			return err
		})
		if !errors.Is(err, tablekit.ErrMaybeCommitted) {
			t.Errorf("got %v, want tablekit.ErrMaybeCommitted", err)
		}
	})
}

// TestRetriesReuseTheConnection: discarded responses are drained, so retries
// go over the same keep-alive connection.
func TestRetriesReuseTheConnection(t *testing.T) {
	r := newRig(t)
	tr := &http.Transport{MaxIdleConnsPerHost: 8}
	t.Cleanup(tr.CloseIdleConnections)
	p := retry.Policy{InitialInterval: 2 * time.Millisecond, MaxAttempts: 10}
	c := r.clientFor(t, r.name, &p, noAzRetry, &http.Client{Transport: tr})
	r.px.SetRules(faults.Rule{Match: r.writes(nil), Probability: 0.5, Fault: faults.Status(503, "ServerBusy", nil)})
	r.px.Reset()
	for i := range 20 {
		if _, err := c.UpsertEntity(testenv.Ctx(t), entityJSON(t, "p", fmt.Sprint("conn", i), i), nil); err != nil {
			t.Fatalf("UpsertEntity: %v", err)
		}
	}
	if r.px.Injected() == 0 {
		t.Fatal("no fault injected: the test proves nothing")
	}
	if got, want := r.px.Conns(), 1; got != want {
		t.Errorf("connections: got %d, want %d for %d requests", got, want, r.px.Count("/"))
	}
}
