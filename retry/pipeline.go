package retry

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"

	"github.com/tablekit/tablekit/internal/opdesc"
	"github.com/tablekit/tablekit/internal/wire"
)

// NewPipelinePolicy returns the policy as an azcore pipeline policy, for
// aztables clients: install it per call with azcore's retry off
// (table.ClientOptions does). p == nil means Default.
func NewPipelinePolicy(p *Policy) policy.Policy {
	return &pipelinePolicy{p: resolve(p)}
}

// errNoResponse reports a pipeline that returned neither response nor error.
var errNoResponse = errors.New("retry: the pipeline returned no response and no error")

type pipelinePolicy struct {
	p Policy // resolved, never modified
}

// Do implements policy.Policy.
func (pp *pipelinePolicy) Do(req *policy.Request) (*http.Response, error) {
	ctx := req.Raw().Context()
	d := opdesc.Of(req)
	// Switch azcore's own retry policy off for every attempt sent from here
	// (a context of the caller's may turn it on), unless the request's
	// context does already.
	attemptCtx := ctx
	if !d.RetryOff {
		attemptCtx = policy.WithRetryOptions(ctx, policy.RetryOptions{MaxRetries: -1})
	}
	if d.SendOnce || ctx.Value(inDoKey{}) != nil {
		a, err := attemptOf(req, attemptCtx, d.Body, true, d.RetryOff)
		if err != nil {
			return nil, err
		}
		count(d)
		resp, err := a.Next()
		if b := brokenResponse(req.Raw(), d, resp, err); b != nil {
			runtime.Drain(resp)
			return nil, b
		}
		return resp, wire.RedactURLError(err)
	}

	body, err := bodyOf(req, d)
	if err != nil {
		return nil, err
	}
	first := true
	return run(ctx, pp.p, d, req.Raw(), runtime.Drain, func() outcome[*http.Response] {
		a, err := attemptOf(req, attemptCtx, body, first, d.RetryOff)
		first = false
		if err != nil {
			return outcome[*http.Response]{err: err, final: true}
		}
		count(d)
		resp, err := a.Next()
		if b := brokenResponse(req.Raw(), d, resp, err); b != nil {
			// A body that did not arrive is a broken connection: the
			// request may have reached the service, and no answer came.
			return outcome[*http.Response]{val: resp, err: b}
		}
		switch {
		case err != nil:
			return outcome[*http.Response]{val: resp, err: wire.RedactURLError(err), responded: resp != nil}
		case resp == nil:
			return outcome[*http.Response]{err: errNoResponse, final: true}
		case resp.StatusCode >= http.StatusBadRequest:
			// The body download policy (later in the pipeline) has buffered
			// the body, so reading it here leaves it intact for aztables,
			// which gets the response back when retrying ends on it.
			return outcome[*http.Response]{val: resp, err: runtime.NewResponseError(resp), responded: true, handBack: true}
		}
		return outcome[*http.Response]{val: resp}
	})
}

// count counts an attempt of d's request (opdesc.Desc.Attempts).
func count(d opdesc.Desc) {
	if d.Attempts != nil {
		d.Attempts.Add(1)
	}
}

// bodyOf returns the bytes of req's body for the attempts to read, each
// through a reader of its own: net/http may still be reading an earlier
// attempt's body after its response came back (a reply that arrived
// before the whole request was sent), so one body rewound for the next
// attempt would be read and moved by two goroutines at once. Requests
// tablekit builds carry their bytes (opdesc.Desc.Body); another client's
// body (aztables', through ClientOptions or Wrap) is copied once, before
// any attempt reads it. nil for a request without a body.
func bodyOf(req *policy.Request, d opdesc.Desc) ([]byte, error) {
	if len(d.Body) > 0 {
		return d.Body, nil
	}
	if req.Body() == nil {
		return nil, nil
	}
	data, err := io.ReadAll(req.Body())
	if err != nil {
		return nil, err
	}
	return data, req.RewindBody()
}

// attemptOf returns the request of one attempt, with ctx, reading body
// through a reader of its own (see bodyOf); without body, the request's
// one body rewound, as azcore's retry policy does (a single attempt of a
// foreign request). The first attempt is req itself with ctx: its body
// is unread (a reader over body's bytes or the one bodyOf rewound), and
// azcore's retry policy, which follows this one in every pipeline
// runtime.NewPipeline builds, gives each attempt its own copy of the
// headers, so the policies after it change none of req's. A later attempt
// gets a copy of req and a new reader, as the previous one's may still be
// read. same says req's context is ctx already (opdesc.Desc.RetryOff): the
// first attempt is then req itself.
func attemptOf(req *policy.Request, ctx context.Context, body []byte, first, same bool) (*policy.Request, error) {
	if first {
		if err := req.RewindBody(); err != nil {
			return nil, err
		}
		if same {
			return req, nil
		}
		return req.WithContext(ctx), nil
	}
	if len(body) > 0 {
		a := req.Clone(ctx)
		if err := a.SetBody(streaming.NopCloser(bytes.NewReader(body)), req.Raw().Header.Get("Content-Type")); err != nil {
			return nil, err
		}
		return a, nil
	}
	if err := req.RewindBody(); err != nil {
		return nil, err
	}
	return req.Clone(ctx), nil
}
