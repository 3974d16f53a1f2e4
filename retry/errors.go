package retry

import (
	"context"
	"errors"
	"fmt"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/internal/errmap"
	"github.com/tablekit/tablekit/internal/opdesc"
)

// exhausted is the error when attempts or time ran out on last: for a
// write that may have reached the service, its outcome is unknown
// (tablekit.ErrMaybeCommitted); without a usable reply, ErrUnavailable; a
// service's answer (say 503) is returned as the service gave it. Each
// names the operation d describes.
func exhausted(d opdesc.Desc, attempts int, last error, mayHaveCommitted bool) error {
	switch {
	case mayHaveCommitted && d.IsWrite():
		return &tablekit.MaybeCommittedError{Operation: d.Name(), Attempts: attempts, Err: last}
	case hasResponse(last):
		return fmt.Errorf("retry: gave up after %d attempts: %w", attempts, errmap.Map(d.Name(), last))
	}
	return errmap.Unavailable(d.Name(), attempts, last)
}

// stopped reports a context that ended while retrying. The context's error
// comes first (errors.Is finds context.Canceled or DeadlineExceeded); the
// last failure, if any, stays reachable too.
func stopped(ctx context.Context, last error) error {
	if last == nil {
		return ctx.Err()
	}
	return fmt.Errorf("retry: %w; last failure: %w", ctx.Err(), last)
}

// errNilOp reports a Do given nothing to run: an error, never a panic.
var errNilOp = errors.New("retry: Do needs an op to run")
