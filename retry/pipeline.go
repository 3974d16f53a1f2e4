package retry

import (
	"bytes"
	"context"
	"errors"
	"net/http"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"

	"github.com/tablekit/tablekit/internal/reqshape"
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
	// Switch azcore's own retry policy off for every attempt sent from here.
	attemptCtx := policy.WithRetryOptions(ctx, policy.RetryOptions{MaxRetries: -1})
	var once reqshape.SingleAttempt
	if req.OperationValue(&once) || ctx.Value(inDoKey{}) != nil {
		a, err := attemptOf(req, attemptCtx)
		if err != nil {
			return nil, err
		}
		resp, err := a.Next()
		if b := brokenResponse(req.Raw(), resp, err); b != nil {
			runtime.Drain(resp)
			return nil, b
		}
		return resp, wire.RedactURLError(err)
	}

	return run(ctx, pp.p, req.Raw(), runtime.Drain, func() outcome[*http.Response] {
		a, err := attemptOf(req, attemptCtx)
		if err != nil {
			return outcome[*http.Response]{err: err, final: true}
		}
		resp, err := a.Next()
		if b := brokenResponse(req.Raw(), resp, err); b != nil {
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

// attemptOf returns the request of one attempt, with ctx. When the sender
// left the body's bytes on the request (reqshape.Body: every request
// tablekit builds), the attempt reads them through a reader of its own;
// otherwise the one body is rewound, as azcore's retry policy does.
func attemptOf(req *policy.Request, ctx context.Context) (*policy.Request, error) {
	var b reqshape.Body
	if req.OperationValue(&b) && len(b.Bytes) > 0 {
		a := req.Clone(ctx)
		if err := a.SetBody(streaming.NopCloser(bytes.NewReader(b.Bytes)), req.Raw().Header.Get("Content-Type")); err != nil {
			return nil, err
		}
		return a, nil
	}
	if err := req.RewindBody(); err != nil {
		return nil, err
	}
	return req.Clone(ctx), nil
}
