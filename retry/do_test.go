package retry_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/devtools/azerrors"
	"github.com/tablekit/tablekit/retry"
)

var errBusy = azerrors.Response(503, "ServerBusy", http.MethodPut, "/t1(PartitionKey='p',RowKey='r')", nil)

func TestDo(t *testing.T) {
	permanent := azerrors.Response(404, "ResourceNotFound", http.MethodGet, "/t1", nil)
	tests := []struct {
		name      string
		results   []error // op's result per attempt; the last repeats
		policy    *retry.Policy
		wantCalls int
		check     func(t *testing.T, err error)
	}{
		{"success", []error{nil}, nil, 1, func(t *testing.T, err error) {
			if err != nil {
				t.Errorf("got %v, want nil", err)
			}
		}},
		{"retried then success", []error{errBusy, io.ErrUnexpectedEOF, nil}, &retry.Policy{InitialInterval: time.Millisecond}, 3, func(t *testing.T, err error) {
			if err != nil {
				t.Errorf("got %v, want nil", err)
			}
		}},
		{"permanent unchanged", []error{permanent}, nil, 1, func(t *testing.T, err error) {
			if err != permanent {
				t.Errorf("got %v, want the op's error unchanged", err)
			}
		}},
		{"exhausted", []error{errBusy}, &retry.Policy{InitialInterval: time.Millisecond, MaxAttempts: 3}, 3, func(t *testing.T, err error) {
			var re *azcore.ResponseError
			if !errors.Is(err, tablekit.ErrThrottled) || !errors.As(err, &re) || re.StatusCode != 503 {
				t.Errorf("got %v, want tablekit.ErrThrottled wrapping the 503", err)
			}
		}},
		{"one attempt", []error{errBusy}, &retry.Policy{MaxAttempts: 1}, 1, func(t *testing.T, err error) {
			if !errors.Is(err, tablekit.ErrThrottled) {
				t.Errorf("got %v, want tablekit.ErrThrottled", err)
			}
		}},
		{"custom classifier", []error{errors.New("flaky"), nil}, &retry.Policy{InitialInterval: time.Millisecond,
			Classify: func(err error) bool { return err.Error() == "flaky" }}, 2, func(t *testing.T, err error) {
			if err != nil {
				t.Errorf("got %v, want nil", err)
			}
		}},
		{"caller's deadline not retried", []error{fmt.Errorf("op: %w", context.DeadlineExceeded)}, nil, 1, func(t *testing.T, err error) {
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("got %v, want DeadlineExceeded", err)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var orig retry.Policy
			if tc.policy != nil {
				orig = *tc.policy
			}
			calls := 0
			err := retry.Do(context.Background(), tc.policy, func(ctx context.Context) error {
				calls++
				return tc.results[min(calls, len(tc.results))-1]
			})
			tc.check(t, err)
			if calls != tc.wantCalls {
				t.Errorf("calls: got %d, want %d", calls, tc.wantCalls)
			}
			if tc.policy != nil && (tc.policy.MaxAttempts != orig.MaxAttempts || tc.policy.InitialInterval != orig.InitialInterval || tc.policy.Jitter != orig.Jitter) {
				t.Errorf("Do mutated the policy: got %+v, want %+v", *tc.policy, orig)
			}
		})
	}
}

func TestDoEvents(t *testing.T) {
	var ev events
	p := retry.Policy{InitialInterval: 2 * time.Millisecond, Multiplier: 3, Jitter: -1, MaxAttempts: 4, OnRetry: ev.hook}
	reset := resetErr(&http.Request{Method: http.MethodPut, URL: &url.URL{Scheme: "http", Host: "h", Path: "/t1", RawQuery: "sig=x"}})
	results := []error{reset, errBusy, errBusy, nil}
	calls := 0
	if err := retry.Do(context.Background(), &p, func(context.Context) error { calls++; return results[calls-1] }); err != nil {
		t.Fatalf("Do: %v", err)
	}
	got := ev.all()
	want := []retry.Event{
		{Attempt: 1, Delay: 0, Method: "PUT", Path: "/t1"}, // broken connection: at once
		{Attempt: 2, Delay: 2 * time.Millisecond, Status: 503, Code: "ServerBusy", Method: "PUT", Path: "/t1(PartitionKey='p',RowKey='r')"},
		{Attempt: 3, Delay: 6 * time.Millisecond, Status: 503, Code: "ServerBusy", Method: "PUT", Path: "/t1(PartitionKey='p',RowKey='r')"},
	}
	if len(got) != len(want) {
		t.Fatalf("events: got %+v, want %+v", got, want)
	}
	for i := range want {
		g := got[i]
		g.Err = nil
		if g != want[i] {
			t.Errorf("event %d: got %+v, want %+v", i, g, want[i])
		}
	}
}

func TestDoRetryAfter(t *testing.T) {
	throttled := azerrors.Response(429, "TooManyRequests", http.MethodPut, "/t1", http.Header{"Retry-After-Ms": {"150"}})
	var ev events
	p := retry.Policy{InitialInterval: time.Millisecond, MaxInterval: 10 * time.Second, OnRetry: ev.hook}
	calls := 0
	start := time.Now()
	err := retry.Do(context.Background(), &p, func(context.Context) error {
		calls++
		if calls == 1 {
			return throttled
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := time.Since(start); got < 150*time.Millisecond {
		t.Errorf("waited %v, want at least the 150ms asked for", got)
	}
	if evs := ev.all(); len(evs) != 1 || evs[0].Delay != 150*time.Millisecond {
		t.Errorf("events: got %+v, want one with delay 150ms", evs)
	}
}

func TestDoContext(t *testing.T) {
	t.Run("canceled before", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		called := false
		err := retry.Do(ctx, nil, func(context.Context) error { called = true; return nil })
		if !errors.Is(err, context.Canceled) || called {
			t.Errorf("got %v (called %v), want context.Canceled without calling op", err, called)
		}
	})
	t.Run("canceled while waiting", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		p := retry.Policy{InitialInterval: time.Hour, MaxInterval: time.Hour, MaxElapsed: 2 * time.Hour}
		time.AfterFunc(50*time.Millisecond, cancel)
		calls := 0
		start := time.Now()
		err := retry.Do(ctx, &p, func(context.Context) error { calls++; return errBusy })
		if got := time.Since(start); got > 5*time.Second {
			t.Errorf("returned after %v, want at once", got)
		}
		var re *azcore.ResponseError
		if !errors.Is(err, context.Canceled) || !errors.As(err, &re) {
			t.Errorf("got %v, want context.Canceled with the 503 reachable", err)
		}
		if calls != 1 {
			t.Errorf("calls: got %d, want 1", calls)
		}
	})
	t.Run("deadline", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		p := retry.Policy{InitialInterval: time.Hour, MaxInterval: time.Hour, MaxElapsed: 2 * time.Hour}
		err := retry.Do(ctx, &p, func(context.Context) error { return errBusy })
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("got %v, want DeadlineExceeded", err)
		}
	})
	t.Run("op sees the cancellation", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		err := retry.Do(ctx, nil, func(ctx context.Context) error { cancel(); return ctx.Err() })
		if !errors.Is(err, context.Canceled) || errors.Is(err, tablekit.ErrUnavailable) {
			t.Errorf("got %v, want context.Canceled", err)
		}
	})
}

func TestDoAmbiguousInsert(t *testing.T) {
	insert := &http.Request{Method: http.MethodPost, URL: &url.URL{Scheme: "http", Host: "h", Path: "/devstoreaccount1/t1"}}
	conflict := azerrors.Response(409, "EntityAlreadyExists", http.MethodPost, "/devstoreaccount1/t1", nil)
	results := []error{resetErr(insert), conflict}
	calls := 0
	err := retry.Do(context.Background(), &retry.Policy{InitialInterval: time.Millisecond}, func(context.Context) error {
		calls++
		return results[calls-1]
	})
	var ae *tablekit.MaybeCommittedError
	if !errors.Is(err, tablekit.ErrMaybeCommitted) || !errors.As(err, &ae) || ae.Attempts != 2 || ae.Err != conflict {
		t.Fatalf("got %v, want AmbiguousError after 2 attempts wrapping the 409", err)
	}
	var re *azcore.ResponseError
	if !errors.As(err, &re) || re.StatusCode != 409 {
		t.Errorf("errors.As *azcore.ResponseError: got %v", err)
	}
	// Without an earlier transport failure the conflict is a plain conflict.
	if err := retry.Do(context.Background(), nil, func(context.Context) error { return conflict }); err != conflict {
		t.Errorf("first-attempt conflict: got %v, want it unchanged", err)
	}
}
