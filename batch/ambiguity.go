package batch

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"

	"github.com/tablekit/tablekit/retry"
	"github.com/tablekit/tablekit/table"
)

// submit sends one chunk through retry.Do and says what became of it. A
// retry after an attempt that may have committed can fail because of that
// commit; such a chunk is Unknown, not Failed.
func (w *writer[T]) submit(ctx context.Context, c *chunk[T]) (State, error) {
	attempted, earlierMayHaveCommitted := false, false
	err := retry.Do(ctx, &w.policy, func(ctx context.Context) error {
		attempted = true
		_, err := send(ctx, w.enc.t, c.wire, c.ops)
		if err == nil {
			return nil
		}
		if earlierMayHaveCommitted {
			var oe *OpError[T]
			if errors.As(err, &oe) && isAmbiguousStatus(oe.StatusCode) {
				// Not retried (a 4xx): most likely the earlier attempt's
				// own change.
				return fmt.Errorf("batch: %w (an earlier attempt of the transaction failed after sending it); this attempt: %w", table.ErrMaybeCommitted, err)
			}
		}
		if mayHaveCommitted(err) {
			earlierMayHaveCommitted = true
		}
		return err
	})
	// Report the failed operation by its position in the input.
	var oe *OpError[T]
	if errors.As(err, &oe) && oe.Index >= 0 && oe.Index < len(c.positions) {
		oe.Index = c.positions[oe.Index]
	}
	var reply *ReplyError
	switch {
	case err == nil:
		return Committed, nil
	case !attempted:
		return NotSent, fmt.Errorf("%w: %w", ErrNotSent, err)
	case earlierMayHaveCommitted || errors.As(err, &reply):
		return Unknown, err
	}
	return Failed, err
}

// mayHaveCommitted reports whether a failed attempt of a transaction may
// have been applied. An unreadable reply may hide a commit and any other
// response refused the transaction; for transport failures, retry's
// judgement decides. (retry.MayHaveReached alone counts every response as
// having reached the service, which would turn refusals into Unknown.)
func mayHaveCommitted(err error) bool {
	var reply *ReplyError
	if errors.As(err, &reply) {
		return true
	}
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		return false // the service refused it (OpError included)
	}
	return retry.MayHaveReached(err)
}

// isAmbiguousStatus: statuses a transaction gets on a retry when its
// earlier attempt did commit: Add finds the entity (409), a conditional
// Update finds a new ETag (412), Delete finds nothing (404).
func isAmbiguousStatus(status int) bool {
	return status == http.StatusConflict || status == http.StatusPreconditionFailed || status == http.StatusNotFound
}
