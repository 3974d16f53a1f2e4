package retry

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"

	"github.com/tablekit/tablekit/internal/reqshape"
)

// ErrAmbiguous is matched (with errors.Is) by the error of a write that was
// retried after an attempt that may have reached the service, and whose
// retry then failed in the way the write's own success would make it fail:
// an insert answered 409 EntityAlreadyExists, a conditional update 412, a
// delete 404 or 412. The earlier attempt may have committed, so the failure
// may be the write's own doing rather than someone else's. Only a read can
// tell. The error is an [*AmbiguousError] naming the operation.
var ErrAmbiguous = errors.New("retry: write may have been committed by an earlier attempt")

// ErrAmbiguousInsert is matched, besides [ErrAmbiguous], by an ambiguous
// insert only (Op [OpInsert]): code written when inserts were the only
// ambiguous writes keeps working.
var ErrAmbiguousInsert = errors.New("retry: insert may have been committed by an earlier attempt")

// Op names the kind of write an [*AmbiguousError] reports.
type Op string

// The writes whose retry can collide with their own earlier attempt.
const (
	OpInsert      Op = "insert"      // 409 EntityAlreadyExists
	OpUpdate      Op = "update"      // conditional update or merge: 412
	OpDelete      Op = "delete"      // 404 (the entity is gone) or 412
	OpTransaction Op = "transaction" // a batch; reported by package batch
)

// AmbiguousError reports a write whose outcome is not known; see
// [ErrAmbiguous]. Package batch and other code retrying its own writes may
// build one too.
type AmbiguousError struct {
	// Op is the kind of write.
	Op Op
	// Attempts is the number of attempts made, the last one included.
	Attempts int
	// Err is the last attempt's failure, usually an *azcore.ResponseError
	// (409, 412 or 404).
	Err error
}

// Error says what happened without the request's URL or body.
func (e *AmbiguousError) Error() string {
	status := "a conflict"
	var re *azcore.ResponseError
	if errors.As(e.Err, &re) {
		status = fmt.Sprintf("%d %s", re.StatusCode, re.ErrorCode)
	}
	return fmt.Sprintf("retry: %s may have been committed by an earlier attempt (attempt %d got %s after an attempt that may have reached the service)", e.Op, e.Attempts, status)
}

// Is makes errors.Is true for ErrAmbiguous, and for ErrAmbiguousInsert when
// Op is OpInsert.
func (e *AmbiguousError) Is(target error) bool {
	return target == ErrAmbiguous || (target == ErrAmbiguousInsert && e.Op == OpInsert)
}

// Unwrap returns the last failure, so errors.As still reaches
// *azcore.ResponseError.
func (e *AmbiguousError) Unwrap() error { return e.Err }

// ownCollision reports a failure that the write's own earlier success would
// cause, and which write it is: the answers that are ambiguous after an
// attempt that may have reached the service.
func ownCollision(err error) (Op, bool) {
	var re *azcore.ResponseError
	if !errors.As(err, &re) {
		return "", false
	}
	req := requestOf(re)
	switch {
	case re.StatusCode == http.StatusConflict && re.ErrorCode == codeEntityAlreadyExists && reqshape.EntityInsert(req):
		return OpInsert, true
	case re.StatusCode == http.StatusPreconditionFailed && reqshape.EntityUpdate(req):
		return OpUpdate, true
	case re.StatusCode == http.StatusPreconditionFailed && reqshape.EntityDelete(req),
		re.StatusCode == http.StatusNotFound && re.ErrorCode != codeTableNotFound && reqshape.EntityDelete(req):
		return OpDelete, true
	}
	return "", false
}
