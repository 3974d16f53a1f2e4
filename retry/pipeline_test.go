package retry_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/devtools/azerrors"
	"github.com/tablekit/tablekit/internal/opdesc"
	"github.com/tablekit/tablekit/retry"
)

// fast is a policy for tests: short, exact delays.
func fast(ev *events) retry.Policy {
	p := retry.Policy{InitialInterval: time.Millisecond, MaxInterval: 10 * time.Millisecond, Jitter: -1, MaxAttempts: 4}
	if ev != nil {
		p.OnRetry = ev.hook
	}
	return p
}

func resetErr(req *http.Request) error {
	return &url.Error{Op: req.Method[:1] + strings.ToLower(req.Method[1:]), URL: req.URL.String(),
		Err: &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}}
}

func TestPipelineRewindsBodyAndSignsEachAttempt(t *testing.T) {
	ft := &fakeTransport{script: func(n int, req *http.Request) (*http.Response, error) {
		if n < 3 {
			return azerrors.Reply(req, 503, "ServerBusy", nil), nil
		}
		return azerrors.Reply(req, 204, "", nil), nil
	}}
	var ev events
	p := fast(&ev)
	c := fakeClient(t, ft, &p, policy.RetryOptions{MaxRetries: -1})
	body := entityJSON(t, "p", "r", "v")
	if _, err := c.UpsertEntity(context.Background(), body, nil); err != nil {
		t.Fatalf("UpsertEntity: %v", err)
	}
	if got, want := ft.Calls(), 3; got != want {
		t.Fatalf("attempts: got %d, want %d", got, want)
	}
	for i := range 3 {
		if got := ft.bodies[i]; got != ft.bodies[0] || !strings.Contains(got, `"RowKey":"r"`) {
			t.Errorf("attempt %d body: got %q, want the entity each time", i+1, got)
		}
		if got := ft.auth[i]; !strings.HasPrefix(got, "SharedKey") {
			t.Errorf("attempt %d Authorization: got %q, want a shared key signature", i+1, got)
		}
	}
	evs := ev.all()
	if got, want := len(evs), 2; got != want {
		t.Fatalf("events: got %d, want %d", got, want)
	}
	for i, e := range evs {
		if e.Attempt != i+1 || e.Status != 503 || e.Code != "ServerBusy" || e.Method != http.MethodPatch ||
			e.Path != "/devstoreaccount1/t1(PartitionKey='p',RowKey='r')" || e.Delay != time.Millisecond<<i {
			t.Errorf("event %d: got %+v", i, e)
		}
		var re *azcore.ResponseError
		if !errors.As(e.Err, &re) {
			t.Errorf("event %d: Err %v, want *azcore.ResponseError", i, e.Err)
		}
	}
}

// TestPipelineLeavesResponseForAztables checks that building a
// ResponseError inside the policy leaves the body for aztables' own error.
func TestPipelineLeavesResponseForAztables(t *testing.T) {
	for _, tc := range []struct {
		status       int
		code         string
		wantAttempts int
	}{
		{404, "ResourceNotFound", 1},
		{412, "UpdateConditionNotSatisfied", 1},
		{503, "ServerBusy", 4}, // exhausted: the last response is returned
	} {
		ft := &fakeTransport{script: func(n int, req *http.Request) (*http.Response, error) {
			return azerrors.Reply(req, tc.status, tc.code, nil), nil
		}}
		p := fast(nil)
		c := fakeClient(t, ft, &p, policy.RetryOptions{MaxRetries: -1})
		_, err := c.GetEntity(context.Background(), "p", "r", nil)
		var re *azcore.ResponseError
		if !errors.As(err, &re) {
			t.Fatalf("%d: got %v, want *azcore.ResponseError", tc.status, err)
		}
		if re.StatusCode != tc.status || re.ErrorCode != tc.code {
			t.Errorf("%d: got %d %q, want %d %q", tc.status, re.StatusCode, re.ErrorCode, tc.status, tc.code)
		}
		if !strings.Contains(re.Error(), "fake "+tc.code) {
			t.Errorf("%d: error text lost the body: %s", tc.status, re.Error())
		}
		if errors.Is(err, tablekit.ErrUnavailable) {
			t.Errorf("%d: status failure wrapped in tablekit.ErrUnavailable, want aztables' error as is", tc.status)
		}
		if got := ft.Calls(); got != tc.wantAttempts {
			t.Errorf("%d: attempts got %d, want %d", tc.status, got, tc.wantAttempts)
		}
	}
}

func TestPipelineTransportErrors(t *testing.T) {
	t.Run("first reset retried at once, then success", func(t *testing.T) {
		ft := &fakeTransport{script: func(n int, req *http.Request) (*http.Response, error) {
			if n < 3 {
				return nil, resetErr(req)
			}
			return azerrors.Reply(req, 204, "", nil), nil
		}}
		var ev events
		p := fast(&ev)
		p.InitialInterval, p.MaxInterval = 20*time.Millisecond, time.Second
		c := fakeClient(t, ft, &p, policy.RetryOptions{MaxRetries: -1})
		if _, err := c.UpsertEntity(context.Background(), entityJSON(t, "p", "r", 1), nil); err != nil {
			t.Fatalf("UpsertEntity: %v", err)
		}
		evs := ev.all()
		if len(evs) != 2 || evs[0].Delay != 0 || evs[1].Delay != 20*time.Millisecond {
			t.Fatalf("events: got %+v, want delays 0 then 20ms", evs)
		}
		if evs[0].Status != 0 || evs[0].Code != "" || !errors.Is(evs[0].Err, syscall.ECONNRESET) {
			t.Errorf("transport event: got %+v", evs[0])
		}
	})
	t.Run("exhausted", func(t *testing.T) {
		ft := &fakeTransport{script: func(n int, req *http.Request) (*http.Response, error) { return nil, resetErr(req) }}
		p := fast(nil)
		c := fakeClient(t, ft, &p, policy.RetryOptions{MaxRetries: -1})
		_, err := c.UpsertEntity(context.Background(), entityJSON(t, "p", "r", 1), nil)
		if !errors.Is(err, tablekit.ErrMaybeCommitted) || !errors.Is(err, syscall.ECONNRESET) {
			t.Fatalf("got %v, want tablekit.ErrMaybeCommitted wrapping ECONNRESET", err)
		}
		var ue *url.Error
		if !errors.As(err, &ue) {
			t.Errorf("errors.As *url.Error: got false, want true")
		}
		if got, want := ft.Calls(), 4; got != want {
			t.Errorf("attempts: got %d, want %d", got, want)
		}
	})
}

func TestPipelineAmbiguousInsert(t *testing.T) {
	refused := func(req *http.Request) error {
		return &url.Error{Op: "Post", URL: req.URL.String(), Err: &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}}
	}
	tests := []struct {
		name          string
		first         func(*http.Request) error
		upsert        bool
		wantAmbiguous bool
	}{
		{"insert after reset", resetErr, false, true},
		{"insert after refused", refused, false, false}, // never reached the server
		{"upsert after reset", resetErr, true, false},   // not an insert
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ft := &fakeTransport{script: func(n int, req *http.Request) (*http.Response, error) {
				if n == 1 {
					return nil, tc.first(req)
				}
				return azerrors.Reply(req, 409, "EntityAlreadyExists", nil), nil
			}}
			p := fast(nil)
			c := fakeClient(t, ft, &p, policy.RetryOptions{MaxRetries: -1})
			var err error
			if tc.upsert {
				_, err = c.UpsertEntity(context.Background(), entityJSON(t, "p", "r", 1), nil)
			} else {
				_, err = c.AddEntity(context.Background(), entityJSON(t, "p", "r", 1), nil)
			}
			var re *azcore.ResponseError
			if !errors.As(err, &re) || re.StatusCode != 409 || re.ErrorCode != "EntityAlreadyExists" {
				t.Fatalf("got %v, want a reachable 409 EntityAlreadyExists", err)
			}
			if got := errors.Is(err, tablekit.ErrMaybeCommitted); got != tc.wantAmbiguous {
				t.Fatalf("errors.Is(tablekit.ErrMaybeCommitted): got %v, want %v (err %v)", got, tc.wantAmbiguous, err)
			}
			if tc.wantAmbiguous {
				var ae *tablekit.MaybeCommittedError
				if !errors.As(err, &ae) || ae.Attempts != 2 {
					t.Errorf("AmbiguousError: got %+v, want Attempts 2", ae)
				}
			}
			if got, want := ft.Calls(), 2; got != want {
				t.Errorf("attempts: got %d, want %d", got, want)
			}
		})
	}
}

// TestPipelineTurnsAzcoreRetryOff: azcore's own retry would make 4 attempts
// of every one of ours; the policy disables it per request.
func TestPipelineTurnsAzcoreRetryOff(t *testing.T) {
	busy := func(n int, req *http.Request) (*http.Response, error) {
		return azerrors.Reply(req, 503, "ServerBusy", nil), nil
	}
	azcoreRetry := policy.RetryOptions{RetryDelay: time.Millisecond, MaxRetryDelay: time.Millisecond} // MaxRetries 0 = azcore's default 3
	p := fast(nil)
	tests := []struct {
		name  string
		p     *retry.Policy
		opts  policy.RetryOptions
		calls int
	}{
		{"azcore alone retries (control)", nil, azcoreRetry, 4},
		{"ours with MaxRetries -1", &p, policy.RetryOptions{MaxRetries: -1}, 4},
		{"ours with azcore left on", &p, azcoreRetry, 4},
		{"ours with azcore MaxRetries 5", &p, policy.RetryOptions{MaxRetries: 5, RetryDelay: time.Millisecond}, 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ft := &fakeTransport{script: busy}
			c := fakeClient(t, ft, tc.p, tc.opts)
			if _, err := c.GetEntity(context.Background(), "p", "r", nil); err == nil {
				t.Fatal("got nil error, want 503")
			}
			if got := ft.Calls(); got != tc.calls {
				t.Errorf("attempts: got %d, want %d", got, tc.calls)
			}
		})
	}
}

func TestPipelineCancelStopsAtOnce(t *testing.T) {
	ft := &fakeTransport{script: func(n int, req *http.Request) (*http.Response, error) {
		return azerrors.Reply(req, 503, "ServerBusy", nil), nil
	}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p := retry.Policy{InitialInterval: time.Hour, MaxInterval: time.Hour, MaxElapsed: 2 * time.Hour,
		OnRetry: func(retry.Event) { cancel() }}
	c := fakeClient(t, ft, &p, policy.RetryOptions{MaxRetries: -1})
	start := time.Now()
	_, err := c.GetEntity(ctx, "p", "r", nil)
	if got := time.Since(start); got > 5*time.Second {
		t.Errorf("returned after %v, want at once", got)
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
	var re *azcore.ResponseError
	if !errors.As(err, &re) || re.StatusCode != 503 {
		t.Errorf("last failure: got %v, want the 503 reachable", err)
	}
	if got, want := ft.Calls(), 1; got != want {
		t.Errorf("attempts: got %d, want %d", got, want)
	}
}

func TestPipelineTableBeingDeleted(t *testing.T) {
	beingDeleted := func(n int, req *http.Request) (*http.Response, error) {
		if n == 1 {
			return azerrors.Reply(req, 409, "TableBeingDeleted", nil), nil
		}
		return azerrors.Reply(req, 204, "", nil), nil
	}
	p := fast(nil)
	ft := &fakeTransport{script: beingDeleted}
	c := fakeClient(t, ft, &p, policy.RetryOptions{MaxRetries: -1})
	if _, err := c.CreateTable(context.Background(), nil); err != nil {
		t.Fatalf("CreateTable: %v", err)
	}
	if got, want := ft.Calls(), 2; got != want {
		t.Errorf("create attempts: got %d, want %d", got, want)
	}
	ft = &fakeTransport{script: beingDeleted}
	c = fakeClient(t, ft, &p, policy.RetryOptions{MaxRetries: -1})
	if _, err := c.UpsertEntity(context.Background(), entityJSON(t, "p", "r", 1), nil); err == nil {
		t.Fatal("UpsertEntity: got nil error, want 409 TableBeingDeleted")
	}
	if got, want := ft.Calls(), 1; got != want {
		t.Errorf("upsert attempts: got %d, want %d", got, want)
	}
}

// TestPipelineNeverLeaksSAS: a SAS client whose transport fails; neither the
// error nor the hook's log may contain the signature.
func TestPipelineNeverLeaksSAS(t *testing.T) {
	ft := &fakeTransport{script: func(n int, req *http.Request) (*http.Response, error) { return nil, resetErr(req) }}
	var logBuf bytes.Buffer
	p := fast(nil)
	p.OnRetry = retry.SlogHook(slog.New(slog.NewTextHandler(&logBuf, nil)))
	c := sasClient(t, ft, &p, "http://127.0.0.1:1/devstoreaccount1/t1?sv=2019-02-02&tn=t1&sp=raud&se=2099-01-01&sig=TOPSECRETsig%3D")
	_, err := c.UpsertEntity(context.Background(), entityJSON(t, "p", "r", 1), nil)
	if err == nil {
		t.Fatal("got nil error, want a transport error")
	}
	if !strings.Contains(ft.urls[0], "TOPSECRET") {
		t.Fatalf("test setup: the request URL %q has no signature", ft.urls[0])
	}
	for what, s := range map[string]string{"error": err.Error(), "log": logBuf.String()} {
		if strings.Contains(s, "TOPSECRET") || strings.Contains(s, "sig=") {
			t.Errorf("%s leaks the SAS signature: %s", what, s)
		}
	}
	if got := strings.Count(logBuf.String(), "level=WARN"); got != 3 {
		t.Errorf("log lines: got %d, want 3:\n%s", got, logBuf.String())
	}
	if !strings.Contains(logBuf.String(), "path=\"/devstoreaccount1/t1(PartitionKey='p',RowKey='r')\"") {
		t.Errorf("log lacks the path:\n%s", logBuf.String())
	}
}

// TestPipelineInsideDoMakesOneAttempt: Do is the retry layer; the pipeline
// policy of the client it calls must not multiply its attempts.
func TestPipelineInsideDoMakesOneAttempt(t *testing.T) {
	ft := &fakeTransport{script: func(n int, req *http.Request) (*http.Response, error) {
		return azerrors.Reply(req, 503, "ServerBusy", nil), nil
	}}
	inner := fast(nil) // 4 attempts
	c := fakeClient(t, ft, &inner, policy.RetryOptions{MaxRetries: -1})
	outer := retry.Policy{InitialInterval: time.Millisecond, Jitter: -1, MaxAttempts: 3}
	err := retry.Do(context.Background(), &outer, func(ctx context.Context) error {
		_, err := c.GetEntity(ctx, "p", "r", nil)
		return err
	})
	if !errors.Is(err, tablekit.ErrThrottled) {
		t.Errorf("got %v, want tablekit.ErrThrottled", err)
	}
	var re *azcore.ResponseError
	if !errors.As(err, &re) || re.StatusCode != 503 {
		t.Errorf("got %v, want the 503 reachable", err)
	}
	if got, want := ft.Calls(), 3; got != want {
		t.Errorf("attempts: got %d, want %d (outer policy only)", got, want)
	}
}

// TestPipelineSingleAttempt: a request its sender marked to be sent once
// gets one attempt, outside Do too; an unmarked one is retried.
func TestPipelineSingleAttempt(t *testing.T) {
	for _, tt := range []struct {
		name   string
		marked bool
		want   int
	}{{"marked", true, 1}, {"unmarked", false, 4}} {
		t.Run(tt.name, func(t *testing.T) {
			ft := &fakeTransport{script: func(_ int, req *http.Request) (*http.Response, error) {
				return azerrors.Reply(req, 503, "ServerBusy", nil), nil
			}}
			p := fast(nil)
			pl := runtime.NewPipeline("m", "v1.0.0", runtime.PipelineOptions{PerCall: []policy.Policy{retry.NewPipelinePolicy(&p)}},
				&policy.ClientOptions{Transport: ft, Retry: policy.RetryOptions{MaxRetries: -1}})
			req, err := runtime.NewRequest(context.Background(), http.MethodPost, "https://acct.table.core.windows.net/$batch")
			if err != nil {
				t.Fatal(err)
			}
			// The description counts the attempts sent (Desc.Attempts).
			var counted atomic.Int32
			opdesc.Set(req, opdesc.Desc{Kind: opdesc.Transaction, SendOnce: tt.marked, Attempts: &counted})
			resp, err := pl.Do(req)
			if err != nil || resp.StatusCode != 503 {
				t.Fatalf("got %v, %v; want the 503", resp, err)
			}
			if got := ft.Calls(); got != tt.want {
				t.Errorf("attempts: got %d, want %d", got, tt.want)
			}
			if got := int(counted.Load()); got != tt.want {
				t.Errorf("attempts counted: got %d, want %d", got, tt.want)
			}
		})
	}
}

// TestPipelineAttemptsReadTheirOwnBody: a transport may still be reading
// an attempt's body when its reply has come and the next attempt starts.
// Every attempt reads from a reader of its own, over the body's bytes on
// the request (opdesc.Desc.Body) or over a copy of another client's body, so
// the first attempt's reader still holds the rest of its body after the
// second attempt has read all of its own: no reader is moved by two.
func TestPipelineAttemptsReadTheirOwnBody(t *testing.T) {
	const body = `{"PartitionKey":"p","RowKey":"r"}`
	half := len(body) / 2
	for _, tt := range []struct {
		name      string
		withBytes bool
		wantRest  string
	}{{"bytes on the request", true, body[half:]}, {"another client's body", false, body[half:]}} {
		t.Run(tt.name, func(t *testing.T) {
			var first io.Reader
			var second []byte
			tr := transportFunc(func(req *http.Request) (*http.Response, error) {
				if first == nil {
					// A reply before the whole body went out.
					buf := make([]byte, half)
					if _, err := io.ReadFull(req.Body, buf); err != nil {
						t.Fatal(err)
					}
					first = req.Body
					return azerrors.Reply(req, 503, "ServerBusy", nil), nil
				}
				second, _ = io.ReadAll(req.Body)
				return azerrors.Reply(req, 204, "", nil), nil
			})
			p := fast(nil)
			pl := runtime.NewPipeline("m", "v1.0.0", runtime.PipelineOptions{PerCall: []policy.Policy{retry.NewPipelinePolicy(&p)}},
				&policy.ClientOptions{Transport: tr, Retry: policy.RetryOptions{MaxRetries: -1}})
			req, err := runtime.NewRequest(context.Background(), http.MethodPost, "https://acct.table.core.windows.net/t")
			if err != nil {
				t.Fatal(err)
			}
			if tt.withBytes {
				opdesc.Set(req, opdesc.Desc{Kind: opdesc.Insert, Body: []byte(body)})
			}
			if err := req.SetBody(streaming.NopCloser(strings.NewReader(body)), "application/json"); err != nil {
				t.Fatal(err)
			}
			if _, err := pl.Do(req); err != nil {
				t.Fatal(err)
			}
			if string(second) != body {
				t.Errorf("second attempt sent %q, want %q", second, body)
			}
			rest, _ := io.ReadAll(first)
			if string(rest) != tt.wantRest {
				t.Errorf("the first attempt's reader then gave %q, want %q", rest, tt.wantRest)
			}
		})
	}
}

type transportFunc func(*http.Request) (*http.Response, error)

func (f transportFunc) Do(req *http.Request) (*http.Response, error) { return f(req) }

// TestPipelineReadsTheDescription: the loop learns which operation it
// retries from the description its call carries, not from the request's
// method and URL: a lost reply, then the 409 of an insert's own commit, is
// ambiguous for an insert described so, and a plain conflict for the same
// request described as an upsert.
func TestPipelineReadsTheDescription(t *testing.T) {
	for _, tt := range []struct {
		name    string
		desc    opdesc.Desc
		wantOp  string // of the *tablekit.MaybeCommittedError; "" for none
		wantErr bool
	}{
		{"insert", opdesc.Desc{Kind: opdesc.Insert}, "add", true},
		{"upsert", opdesc.Desc{Kind: opdesc.Upsert}, "", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ft := &fakeTransport{script: func(n int, req *http.Request) (*http.Response, error) {
				if n == 1 {
					return nil, io.ErrUnexpectedEOF // may have reached the service
				}
				return azerrors.Reply(req, 409, "EntityAlreadyExists", nil), nil
			}}
			p := fast(nil)
			pl := runtime.NewPipeline("m", "v1.0.0", runtime.PipelineOptions{PerCall: []policy.Policy{retry.NewPipelinePolicy(&p)}},
				&policy.ClientOptions{Transport: ft, Retry: policy.RetryOptions{MaxRetries: -1}})
			// A URL that by its shape would be a transaction.
			req, err := runtime.NewRequest(context.Background(), http.MethodPost, "https://acct.table.core.windows.net/$batch")
			if err != nil {
				t.Fatal(err)
			}
			opdesc.Set(req, tt.desc)
			resp, err := pl.Do(req)
			var mc *tablekit.MaybeCommittedError
			switch {
			case tt.wantErr && !errors.As(err, &mc):
				t.Fatalf("got %v, %v; want a *tablekit.MaybeCommittedError", resp, err)
			case tt.wantErr && mc.Operation != tt.wantOp:
				t.Errorf("Operation: got %q, want %q", mc.Operation, tt.wantOp)
			case !tt.wantErr && (err != nil || resp == nil || resp.StatusCode != 409):
				t.Errorf("got %v, %v; want the 409 handed back", resp, err)
			}
			if got, want := ft.Calls(), 2; got != want {
				t.Errorf("attempts: got %d, want %d", got, want)
			}
		})
	}
}

// seenPolicy records the *http.Request of each attempt it sees.
type seenPolicy struct{ reqs []*http.Request }

func (s *seenPolicy) Do(req *policy.Request) (*http.Response, error) {
	s.reqs = append(s.reqs, req.Raw())
	return req.Next()
}

// TestPipelineRetryOffInContext: a request whose context already turns
// azcore's retry off (opdesc.Desc.RetryOff) is its own first attempt, and
// azcore's retry, left on in the pipeline's options, still makes no
// attempts of its own; every attempt sends the whole body.
func TestPipelineRetryOffInContext(t *testing.T) {
	const body = `{"PartitionKey":"p","RowKey":"r"}`
	for _, tt := range []struct {
		name      string
		retryOff  bool
		wantFirst bool // the first attempt is the caller's request
	}{
		{"context set by the caller", true, true},
		{"context set by the policy", false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ft := &fakeTransport{script: func(n int, req *http.Request) (*http.Response, error) {
				return azerrors.Reply(req, 503, "ServerBusy", nil), nil
			}}
			p := fast(nil)
			seen := &seenPolicy{}
			pl := runtime.NewPipeline("m", "v1.0.0", runtime.PipelineOptions{PerCall: []policy.Policy{retry.NewPipelinePolicy(&p)}},
				&policy.ClientOptions{Transport: ft, PerCallPolicies: []policy.Policy{seen},
					Retry: policy.RetryOptions{MaxRetries: 5, RetryDelay: time.Millisecond}})
			ctx := context.Background()
			if tt.retryOff {
				ctx = policy.WithRetryOptions(ctx, policy.RetryOptions{MaxRetries: -1})
			}
			req, err := runtime.NewRequest(ctx, http.MethodPost, "https://acct.table.core.windows.net/t")
			if err != nil {
				t.Fatal(err)
			}
			opdesc.Set(req, opdesc.Desc{Kind: opdesc.Upsert, RetryOff: tt.retryOff, Body: []byte(body)})
			if err := req.SetBody(streaming.NopCloser(strings.NewReader(body)), "application/json"); err != nil {
				t.Fatal(err)
			}
			raw := req.Raw()
			resp, err := pl.Do(req)
			if err != nil || resp.StatusCode != 503 {
				t.Fatalf("got %v, %v; want the 503 handed back", resp, err)
			}
			if got, want := ft.Calls(), p.MaxAttempts; got != want {
				t.Errorf("attempts: got %d, want %d", got, want)
			}
			for i, b := range ft.bodies {
				if b != body {
					t.Errorf("attempt %d sent %q, want %q", i+1, b, body)
				}
			}
			if len(seen.reqs) == 0 {
				t.Fatal("no attempt seen")
			}
			if got := seen.reqs[0] == raw; got != tt.wantFirst {
				t.Errorf("first attempt is the caller's request: got %v, want %v", got, tt.wantFirst)
			}
		})
	}
}
