package batch

import (
	"context"
	"errors"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/retry"
)

// submit sends one chunk and says what became of it. retry.Do is the loop
// that resends it; each send is a single attempt (the request says so to
// the pipeline's retry policy), so that this loop sees every attempt. A
// chunk whose attempt may have committed and that then did not commit is
// Unknown, not Failed; its error keeps that attempt's failure.
func (w *writer[T]) submit(ctx context.Context, c *chunk[T]) (State, error) {
	var a attempts
	err := retry.Do(ctx, &w.policy, func(ctx context.Context) error {
		_, err := send(ctx, w.enc.t, c.wire, true, false)
		if err == nil {
			a.n++
			return nil
		}
		return a.record(err)
	})
	// Report the failed operation by its position in the input.
	var se *tablekit.ServiceError
	if errors.As(err, &se) && se.Index >= 0 && se.Index < len(c.positions) {
		se.Index = c.positions[se.Index]
	}
	switch {
	case err == nil:
		return Committed, nil
	case a.n == 0:
		return NotSent, errorf("%w: %w", errNotSent, err)
	case a.doubt != nil:
		cause := a.last
		if ctx.Err() != nil || errors.Is(err, tablekit.ErrMaybeCommitted) {
			cause = err
		}
		return Unknown, a.unknown(cause)
	}
	return Failed, err
}
