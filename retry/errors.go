package retry

import (
	"context"
	"errors"
	"fmt"
)

// ErrExhausted is matched (with errors.Is) by the error returned when the
// policy gave up on a retryable failure: no attempts or time left. The last
// failure stays reachable with errors.Is and errors.As, for example the
// *azcore.ResponseError of the last response.
//
// [Do] returns it for every kind of failure. The pipeline policy returns it
// for transport errors only; when the last attempt got a retryable status it
// hands that response back so that aztables reports its usual
// *azcore.ResponseError.
var ErrExhausted = errors.New("retry: gave up")

// exhausted wraps the last failure when attempts or time ran out.
func exhausted(attempts int, last error) error {
	return fmt.Errorf("%w after %d attempts: %w", ErrExhausted, attempts, last)
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
