package retry

import "context"

// inDoKey marks the context that Do hands to its operation. The pipeline
// policy sees it and makes a single attempt per call, so that a client with
// the policy installed, used inside Do, does not multiply attempts. It is
// for clients whose requests Do cannot reach (users' aztables clients);
// tablekit's own requests that must be sent once say so on the request
// (reqshape.SingleAttempt).
type inDoKey struct{}

// Do calls op until it succeeds, fails with an error the policy does not
// retry, or the policy gives up; p == nil means [Default]. Use it for
// operation-level retries: several calls that must be repeated together, or
// clients without the pipeline policy. Do marks the context it passes to
// op, and the policy of [NewPipelinePolicy] makes one attempt for every
// request sent with that context (or one derived from it): Do is then the
// retry layer, and attempts never multiply. A request sent with another
// context, such as one not derived from op's, is retried by the policy as
// usual.
//
// Do returns:
//   - nil when an attempt succeeded;
//   - op's error unchanged when the policy's classifier rejects it;
//   - a *tablekit.MaybeCommittedError when a write failed as its own
//     earlier success would make it fail (an insert 409
//     EntityAlreadyExists, a conditional update 412, a delete 404 or 412)
//     after an attempt that may have reached the service;
//   - when attempts or MaxElapsed ran out: op's last error wrapped, and
//     matching tablekit.ErrUnavailable when it was no reply at all;
//   - ctx's error (context.Canceled or DeadlineExceeded), wrapping the last
//     failure if there was one, as soon as ctx ends: during a wait Do stops
//     at once, and op is not called again.
//
// Each wait follows the policy: exponential backoff with jitter, no wait for
// the first broken connection, a server's Retry-After instead when the
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
