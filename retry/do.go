package retry

import (
	"context"

	"github.com/tablekit/tablekit/internal/opdesc"
)

// inDoKey marks the context that Do hands to its operation. The pipeline
// policy sees it and makes a single attempt per call, so that a client with
// the policy installed, used inside Do, does not multiply attempts. It is
// for clients whose requests Do cannot reach (users' aztables clients);
// tablekit's own requests that must be sent once say so on the request
// (opdesc.Desc.SendOnce).
type inDoKey struct{}

// Do calls op until it succeeds, fails with an error the policy does not
// retry, or the policy gives up; p == nil means Default. Inside Do, the
// pipeline policy makes one attempt per request, so attempts never multiply.
func Do(ctx context.Context, p *Policy, op func(ctx context.Context) error) error {
	if op == nil {
		return errNilOp
	}
	opCtx := context.WithValue(ctx, inDoKey{}, true)
	_, err := run(ctx, resolve(p), opdesc.Desc{}, nil, nil, func() outcome[struct{}] {
		err := op(opCtx)
		return outcome[struct{}]{err: err, responded: hasResponse(err)}
	})
	return err
}
