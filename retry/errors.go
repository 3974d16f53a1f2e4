package retry

import (
	"context"
	"errors"
	"fmt"
)

// ErrAmbiguousInsert is matched (with errors.Is) by the error of an insert
// that was retried after a transport failure and then answered 409
// EntityAlreadyExists. The failed attempt may have reached the service and
// created the entity, in which case the conflict is the insert's own
// success; or someone else inserted the same keys. Only a read can tell:
// compare the stored entity with the one you sent. The error is an
// [*AmbiguousError].
var ErrAmbiguousInsert = errors.New("retry: insert may have been committed by an earlier attempt")

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

// AmbiguousError reports an insert whose outcome is not known; see
// [ErrAmbiguousInsert].
type AmbiguousError struct {
	// Attempts is the number of attempts made, the one answered 409 included.
	Attempts int
	// Err is the *azcore.ResponseError of the 409 EntityAlreadyExists.
	Err error
}

// Error says what happened without the request's URL or body.
func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("%s (attempt %d of the insert got 409 EntityAlreadyExists after a transport failure)", ErrAmbiguousInsert, e.Attempts)
}

// Is makes errors.Is(err, ErrAmbiguousInsert) true.
func (e *AmbiguousError) Is(target error) bool { return target == ErrAmbiguousInsert }

// Unwrap returns the 409 response error, so errors.As still reaches
// *azcore.ResponseError.
func (e *AmbiguousError) Unwrap() error { return e.Err }

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
