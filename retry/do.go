package retry

import "context"

// inDoKey marks the context that Do hands to its operation. The pipeline
// policy sees it and makes a single attempt per call, so that a client with
// the policy installed, used inside Do, does not multiply attempts.
type inDoKey struct{}

// Do calls op until it succeeds, fails with an error the policy does not
// retry, or the policy gives up; p == nil means [Default]. Use it for
// operation-level retries: several calls that must be repeated together, or
// clients without the pipeline policy. Requests made inside op by a client
// that has [NewPipelinePolicy] installed are attempted once each, because
// Do is then the retry layer: attempts never multiply.
//
// Do returns:
//   - nil when an attempt succeeded;
//   - op's error unchanged when the policy's classifier rejects it;
//   - an [*AmbiguousError] (errors.Is [ErrAmbiguous]) when a write failed
//     as its own earlier success would make it fail (an insert 409
//     EntityAlreadyExists, a conditional update 412, a delete 404 or 412)
//     after an attempt that may have reached the service;
//   - an error matching [ErrExhausted] and wrapping op's last error when
//     attempts or MaxElapsed ran out;
//   - ctx's error (context.Canceled or DeadlineExceeded), wrapping the last
//     failure if there was one, as soon as ctx ends: during a wait Do stops
//     at once, and op is not called again.
//
// Each wait follows the policy: exponential backoff with jitter, no wait for
// the first broken connection, at least a server's Retry-After when the
// error is an *azcore.ResponseError that carries one.
func Do(ctx context.Context, p *Policy, op func(ctx context.Context) error) error {
	if op == nil {
		return errNilOp
	}
	opCtx := context.WithValue(ctx, inDoKey{}, true)
	_, err := run(ctx, resolve(p), nil, nil, func() outcome[struct{}] {
		err := op(opCtx)
		return outcome[struct{}]{err: err, responded: hasResponse(err)}
	})
	return err
}
