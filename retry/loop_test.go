package retry_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/devtools/azerrors"
	"github.com/tablekit/tablekit/retry"
)

// seen is an Event without its error value, for comparing.
type seen struct {
	Attempt      int
	Delay        time.Duration
	Status       int
	Code         string
	Method, Path string
}

func seenOf(evs []retry.Event) []seen {
	out := make([]seen, len(evs))
	for i, e := range evs {
		out[i] = seen{e.Attempt, e.Delay, e.Status, e.Code, e.Method, e.Path}
	}
	return out
}

func isStatus(status int) func(error) bool {
	return func(err error) bool {
		var re *azcore.ResponseError
		return errors.As(err, &re) && re.StatusCode == status
	}
}

// TestDoAndPolicyShareTheLoop runs the same fault sequence through Do around
// a plain client and through a client with the pipeline policy: attempts,
// waits, hook events and the kind of error must be the same, because both
// are the same loop.
func TestDoAndPolicyShareTheLoop(t *testing.T) {
	type step func(req *http.Request) (*http.Response, error)
	reset := func(req *http.Request) (*http.Response, error) { return nil, resetErr(req) }
	refused := func(req *http.Request) (*http.Response, error) {
		return nil, &url.Error{Op: "Post", URL: req.URL.String(), Err: &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}}
	}
	status := func(code int, svcCode string, h http.Header) step {
		return func(req *http.Request) (*http.Response, error) { return azerrors.Reply(req, code, svcCode, h), nil }
	}
	ok := status(204, "", nil)
	busyFor20ms := status(503, "ServerBusy", http.Header{"X-Ms-Retry-After-Ms": {"20"}})
	const entity = "/devstoreaccount1/t1(PartitionKey='p',RowKey='r')"
	tests := []struct {
		name     string
		insert   bool // AddEntity rather than UpsertEntity
		steps    []step
		calls    int
		events   []seen
		wantErr  func(error) bool // nil: success
		errMatch string
	}{
		{
			name:  "reset, busy with Retry-After, 500, success",
			steps: []step{reset, busyFor20ms, status(500, "InternalError", nil), ok},
			calls: 4,
			events: []seen{
				{1, 0, 0, "", http.MethodPatch, entity},
				{2, 20 * time.Millisecond, 503, "ServerBusy", http.MethodPatch, entity},
				{3, 2 * time.Millisecond, 500, "InternalError", http.MethodPatch, entity},
			},
		},
		{
			name:   "insert reset, then conflict: ambiguous",
			insert: true,
			steps:  []step{reset, status(409, "EntityAlreadyExists", nil)},
			calls:  2,
			events: []seen{{1, 0, 0, "", http.MethodPost, "/devstoreaccount1/t1"}},
			wantErr: func(err error) bool {
				var ae *tablekit.MaybeCommittedError
				return errors.As(err, &ae) && ae.Attempts == 2 && isStatus(409)(err)
			},
			errMatch: "AmbiguousError after 2 attempts wrapping the 409",
		},
		{
			name:     "insert refused, then conflict: a plain conflict",
			insert:   true,
			steps:    []step{refused, status(409, "EntityAlreadyExists", nil)},
			calls:    2,
			events:   []seen{{1, 0, 0, "", http.MethodPost, "/devstoreaccount1/t1"}},
			wantErr:  func(err error) bool { return isStatus(409)(err) && !errors.Is(err, tablekit.ErrMaybeCommitted) },
			errMatch: "409 without tablekit.ErrMaybeCommitted",
		},
		{
			name:  "resets until the attempts run out",
			steps: []step{reset, reset, reset, reset},
			calls: 4,
			events: []seen{
				{1, 0, 0, "", http.MethodPatch, entity},
				{2, time.Millisecond, 0, "", http.MethodPatch, entity},
				{3, 2 * time.Millisecond, 0, "", http.MethodPatch, entity},
			},
			wantErr: func(err error) bool {
				// The policy knows the PATCH is a write (its outcome unknown); Do does not.
				return (errors.Is(err, tablekit.ErrMaybeCommitted) || errors.Is(err, tablekit.ErrUnavailable)) && errors.Is(err, syscall.ECONNRESET)
			},
			errMatch: "ErrMaybeCommitted (policy) or ErrUnavailable (Do) wrapping the reset",
		},
		{
			name:  "busy until the attempts run out",
			steps: []step{busyFor20ms, status(503, "ServerBusy", nil), status(503, "ServerBusy", nil), status(503, "ServerBusy", nil)},
			calls: 4,
			events: []seen{
				{1, 20 * time.Millisecond, 503, "ServerBusy", http.MethodPatch, entity},
				{2, 2 * time.Millisecond, 503, "ServerBusy", http.MethodPatch, entity},
				{3, 4 * time.Millisecond, 503, "ServerBusy", http.MethodPatch, entity},
			},
			wantErr:  isStatus(503),
			errMatch: "the last 503 reachable",
		},
		{
			name:     "not retryable",
			steps:    []step{status(404, "TableNotFound", nil)},
			calls:    1,
			wantErr:  isStatus(404),
			errMatch: "the 404",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			entry := map[string]func(*testing.T, *fakeTransport, retry.Policy) error{
				"Do": func(t *testing.T, ft *fakeTransport, p retry.Policy) error {
					c := fakeClient(t, ft, nil, policy.RetryOptions{MaxRetries: -1})
					return retry.Do(context.Background(), &p, func(ctx context.Context) error {
						return write(ctx, t, c, tc.insert)
					})
				},
				"policy": func(t *testing.T, ft *fakeTransport, p retry.Policy) error {
					return write(context.Background(), t, fakeClient(t, ft, &p, policy.RetryOptions{MaxRetries: -1}), tc.insert)
				},
			}
			got := map[string][]seen{}
			for name, call := range entry {
				ft := &fakeTransport{script: func(n int, req *http.Request) (*http.Response, error) {
					return tc.steps[min(n, len(tc.steps))-1](req)
				}}
				var ev events
				p := fast(&ev)
				p.MaxInterval = 50 * time.Millisecond
				err := call(t, ft, p)
				switch {
				case tc.wantErr == nil && err != nil:
					t.Errorf("%s: got %v, want success", name, err)
				case tc.wantErr != nil && !tc.wantErr(err):
					t.Errorf("%s: got %v, want %s", name, err, tc.errMatch)
				}
				if n := ft.Calls(); n != tc.calls {
					t.Errorf("%s attempts: got %d, want %d", name, n, tc.calls)
				}
				got[name] = seenOf(ev.all())
				if !slices.Equal(got[name], tc.events) {
					t.Errorf("%s events:\ngot  %+v\nwant %+v", name, got[name], tc.events)
				}
			}
			if !slices.Equal(got["Do"], got["policy"]) {
				t.Errorf("events differ:\nDo     %+v\npolicy %+v", got["Do"], got["policy"])
			}
		})
	}
}

// write inserts or upserts one entity of table t1 through c.
func write(ctx context.Context, t *testing.T, c *aztables.Client, insert bool) error {
	body := entityJSON(t, "p", "r", 1)
	if insert {
		_, err := c.AddEntity(ctx, body, nil)
		return err
	}
	_, err := c.UpsertEntity(ctx, body, nil)
	return err
}
