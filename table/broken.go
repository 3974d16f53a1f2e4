package table

import (
	"errors"

	"github.com/tablekit/tablekit/retry"
)

// ErrBrokenResponse: a reply arrived broken (its body cut short, or a read
// whose JSON does not parse) on every attempt the retry policy made. For a
// read nothing changed; for a write the outcome is unknown, as after any
// broken connection. The *retry.BrokenResponseError with the status and
// cause stays reachable with errors.As.
var ErrBrokenResponse = retry.ErrBrokenResponse

// brokenError maps a broken reply to a *ServiceError, so it matches a
// sentinel of this package like every other failed request; nil when err
// is something else.
func brokenError(op string, err error) error {
	var b *retry.BrokenResponseError
	if !errors.As(err, &b) {
		return nil
	}
	return &ServiceError{Op: op, StatusCode: b.StatusCode, Err: err, outcome: ErrBrokenResponse}
}
