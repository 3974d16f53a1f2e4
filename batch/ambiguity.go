package batch

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"

	"github.com/tablekit/tablekit/retry"
)

// attempts follows the attempts of one transaction, so that a failure its
// own earlier commit may have caused is reported as ambiguous. Write and
// Submit share it.
type attempts struct {
	n int
	// doubt is the failure of the first attempt that may have committed.
	doubt error
}

// record counts a failed attempt and returns the error to report for it:
// an ambiguous one when an earlier attempt may have committed and this one
// failed as that commit would make it fail.
func (a *attempts) record(err error) error {
	a.n++
	if a.doubt != nil {
		if amb := collision(err, a.n, a.doubt); amb != nil {
			return amb
		}
	}
	if a.doubt == nil && mayHaveCommitted(err) {
		a.doubt = err
	}
	return err
}

// collision returns the ambiguous error for err when err is a refusal that
// the transaction's own earlier commit explains: Add finds its entity
// (409), a conditional Update or Delete a new ETag (412), Delete nothing
// (404). The *retry.AmbiguousError keeps the operation's response; the
// failure that made the earlier attempt doubtful stays reachable too.
// Nil for any other err.
func collision(err error, n int, doubt error) error {
	var re *azcore.ResponseError
	if !errors.Is(err, ErrRolledBack) || !errors.As(err, &re) {
		return nil
	}
	switch re.StatusCode {
	case http.StatusConflict, http.StatusPreconditionFailed, http.StatusNotFound:
	default:
		return nil
	}
	amb := &retry.AmbiguousError{Op: retry.OpTransaction, Attempts: n, Err: re}
	if doubt == nil {
		return fmt.Errorf("batch: %w", amb)
	}
	return errorf("batch: %w; the earlier attempt: %w", amb, doubt)
}

// mayHaveCommitted reports whether a failed attempt of a transaction may
// have been applied. An unreadable reply may hide a commit and any other
// response refused the transaction; for transport failures, retry's
// judgement decides. (retry.MayHaveReached alone counts every response as
// having reached the service, which would turn refusals into Unknown.)
func mayHaveCommitted(err error) bool {
	if errors.Is(err, retry.ErrBrokenResponse) {
		return true
	}
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		return false // the service refused it (OpError included)
	}
	return retry.MayHaveReached(err)
}

// notAmbiguous wraps a classifier so that an ambiguous failure is final:
// a retry would only collide again.
func notAmbiguous(classify func(error) bool) func(error) bool {
	if classify == nil {
		classify = retry.IsRetryable
	}
	return func(err error) bool {
		return !errors.Is(err, retry.ErrAmbiguous) && classify(err)
	}
}
