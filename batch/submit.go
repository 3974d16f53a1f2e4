package batch

import (
	"context"
	"errors"

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
		_, err := send(ctx, w.enc.t, c.wire, c.ops, true)
		if err == nil {
			a.n++
			return nil
		}
		return a.record(err)
	})
	// Report the failed operation by its position in the input.
	var oe *OpError[T]
	if errors.As(err, &oe) && oe.Index >= 0 && oe.Index < len(c.positions) {
		oe.Index = c.positions[oe.Index]
	}
	switch {
	case err == nil:
		return Committed, nil
	case a.n == 0:
		return NotSent, errorf("%w: %w", ErrNotSent, err)
	case a.doubt != nil:
		if !errors.Is(err, a.doubt) {
			err = errorf("%w; an earlier attempt may have committed: %w", err, a.doubt)
		}
		return Unknown, err
	}
	return Failed, err
}
