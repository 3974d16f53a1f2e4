package batch

import (
	"errors"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/internal/errmap"
	"github.com/tablekit/tablekit/internal/opdesc"
	"github.com/tablekit/tablekit/retry"
)

// attempts follows the attempts of one transaction, so that a failure its
// own earlier commit may have caused is reported as ambiguous. Write and
// Submit share it.
type attempts struct {
	n int
	// doubt is the failure of the first attempt that may have committed.
	doubt error
	// last is the last attempt's failure as it came.
	last error
}

// record counts a failed attempt and returns the error to report for it:
// a *tablekit.MaybeCommittedError when an earlier attempt may have
// committed and this one failed as that commit would make it fail.
func (a *attempts) record(err error) error {
	a.n++
	a.last = err
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

// unknown is the error of a transaction whose outcome is unknown after
// its attempts: the last failure, as its cause.
func (a *attempts) unknown(err error) error {
	var mc *tablekit.MaybeCommittedError
	if errors.As(err, &mc) {
		return err
	}
	var se *tablekit.ServiceError
	if errors.As(err, &se) {
		err = se.Err
	}
	if a.doubt != nil && a.doubt != err {
		err = errors.Join(err, a.doubt)
	}
	return maybeCommitted(a.n, err)
}

// maybeCommitted is the *tablekit.MaybeCommittedError of a transaction
// after n attempts; cause is the last failure, with a service's answer
// kept as its *azcore.ResponseError (matching no other sentinel).
func maybeCommitted(n int, cause error) error {
	var se *tablekit.ServiceError
	if errors.As(cause, &se) {
		cause = se.Err
	}
	return &tablekit.MaybeCommittedError{Operation: "transaction", Attempts: n, Err: cause}
}

// collision returns the ambiguous error for err when err is an
// operation's refusal that the transaction's own earlier commit explains
// (opdesc.Desc.OwnCollision, the retry loop's test too); doubt, when
// known, is the failure that made an earlier attempt doubtful, kept
// reachable. Nil for any other err.
func collision(err error, n int, doubt error) error {
	var se *tablekit.ServiceError
	var re *azcore.ResponseError
	if !errors.As(err, &se) || !errors.As(err, &re) {
		return nil
	}
	if !(opdesc.Desc{Kind: opdesc.Transaction}).OwnCollision(se.StatusCode, se.Code) {
		return nil
	}
	cause := error(re)
	if doubt != nil {
		cause = errors.Join(re, doubt)
	}
	return &tablekit.MaybeCommittedError{Operation: "transaction", Attempts: n, Err: cause}
}

// mayHaveCommitted reports whether a failed attempt of a transaction may
// have been applied. An unreadable reply may hide a commit and any other
// response refused the transaction; for transport failures, the test of
// whether the request may have reached the service decides.
func mayHaveCommitted(err error) bool {
	var b *errmap.Broken
	if errors.As(err, &b) {
		return true
	}
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		return false // the service refused it
	}
	return errmap.MayHaveReached(err)
}

// notAmbiguous wraps a classifier so that an ambiguous failure is final:
// a retry would only collide again.
func notAmbiguous(classify func(error) bool) func(error) bool {
	if classify == nil {
		classify = retry.IsRetryable
	}
	return func(err error) bool {
		return !errors.Is(err, tablekit.ErrMaybeCommitted) && classify(err)
	}
}
