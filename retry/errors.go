package retry

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/internal/errmap"
)

// exhausted is the error when attempts or time ran out on last: for a
// write that may have reached the service, its outcome is unknown
// (tablekit.ErrMaybeCommitted); without a usable reply, ErrUnavailable; a
// service's answer (say 503) is returned as the service gave it.
func exhausted(req *http.Request, attempts int, last error, mayHaveCommitted bool) error {
	switch {
	case mayHaveCommitted && isWrite(req):
		return &tablekit.MaybeCommittedError{Operation: strings.ToLower(req.Method), Attempts: attempts, Err: last}
	case hasResponse(last):
		return fmt.Errorf("retry: gave up after %d attempts: %w", attempts, errmap.Map("retry", last))
	}
	return errmap.Unavailable("", attempts, last)
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
