package tablekit

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
)

// Outcome sentinels: every error of packages table, query, batch, retry and
// sas matches at most one of them with errors.Is. The table in the package
// documentation says which call returns which.
var (
	// ErrNotFound: the entity does not exist (404). Nothing to update or
	// delete; Get again later or Add it.
	ErrNotFound = errors.New("tablekit: entity not found")
	// ErrTableNotFound: the table does not exist (404 TableNotFound).
	// Create it with Service.CreateTable.
	ErrTableNotFound = errors.New("tablekit: table not found")
	// ErrAlreadyExists: an entity with these keys exists (409
	// EntityAlreadyExists), or, from CreateTable, the table does.
	ErrAlreadyExists = errors.New("tablekit: already exists")
	// ErrTableBeingDeleted: a table of this name is still being deleted (409,
	// 40 s or more) and the retry policy gave up. Wait and create it again.
	ErrTableBeingDeleted = errors.New("tablekit: table is being deleted")
	// ErrPreconditionFailed: the ETag did not match: someone changed or
	// deleted the entity since it was read (412). Read again and decide.
	ErrPreconditionFailed = errors.New("tablekit: precondition failed (ETag mismatch)")
	// ErrForbidden: authentication or authorization failed (401, 403): a
	// SAS without the permission, expired or wrongly signed, a wrong key.
	// Retrying does not help; a new credential may.
	ErrForbidden = errors.New("tablekit: forbidden")
	// ErrTooLarge: the service refused the request or an entity as too
	// large (413). Checks before the request catch the documented limits.
	ErrTooLarge = errors.New("tablekit: request too large")
	// ErrThrottled: the service was busy (429, 503, 500 OperationTimedOut)
	// and the retry policy gave up. Slow down, or retry later.
	ErrThrottled = errors.New("tablekit: service busy")
	// ErrService: any other failure the service answered; the
	// *ServiceError has the status and code.
	ErrService = errors.New("tablekit: service error")
	// ErrUnavailable: no usable reply (connection refused or reset, a
	// timeout, a reply cut short or unreadable, a continuation that cannot
	// be followed) and the retry policy gave up. Nothing was written.
	ErrUnavailable = errors.New("tablekit: no usable reply")
	// ErrMaybeCommitted: a write's outcome is unknown: its reply was lost,
	// or a retry met the write's own earlier success. Table.Verify tells;
	// the error is a *MaybeCommittedError.
	ErrMaybeCommitted = errors.New("tablekit: write may have been committed")
	// ErrInvalid: bad input, refused before any request; the
	// *ValidationError names the field and the rule.
	ErrInvalid = errors.New("tablekit: invalid")
	// ErrDecode: a stored value does not fit the Go type (*DecodeError).
	ErrDecode = errors.New("tablekit: cannot decode entity")
	// ErrUnsupported: the backend does not have this call (Cosmos DB: service
	// properties, stats, stored access policies, a secondary). Nothing was sent.
	ErrUnsupported = errors.New("tablekit: not supported by the backend")
	// ErrIncomplete: a bulk write ended with operations not committed;
	// batch.Summary lists them.
	ErrIncomplete = errors.New("tablekit: not every operation was committed")
	// ErrPositionLost: a query token taken in the middle of a page cannot
	// be resumed exactly on this backend; resume from a page boundary
	// (Page.Token) or start the query again.
	ErrPositionLost = errors.New("tablekit: the token's position in its page cannot be found again")
)

// ServiceError is a failure the service answered. errors.Is matches the
// outcome sentinel of its status and code; errors.As reaches Err, usually
// an *azcore.ResponseError. The message never holds a URL query or a key.
type ServiceError struct {
	Operation  string // the call, e.g. "get", "add", "query", "transaction"
	StatusCode int    // HTTP status
	Code       string // the service's error code, e.g. "EntityAlreadyExists"
	Message    string // first line of the service's message, if any
	Index      int    // the failed operation in a transaction or bulk write; -1 otherwise
	Err        error  // the original error
}

// Error says the outcome, the call, the status and code; never a URL or key.
func (e *ServiceError) Error() string {
	var b strings.Builder
	b.WriteString(e.outcome().Error())
	b.WriteString(" (")
	writeWhere(&b, e.Operation, e.Index)
	b.WriteString(strconv.Itoa(e.StatusCode))
	if e.Code != "" {
		b.WriteString(" ")
		b.WriteString(e.Code)
	}
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	b.WriteString(")")
	return b.String()
}

// Is matches the outcome sentinel of the status and code.
func (e *ServiceError) Is(target error) bool { return target == e.outcome() }

// Unwrap returns the original error.
func (e *ServiceError) Unwrap() error { return e.Err }

// outcome is the one mapping from a service's answer to a sentinel.
func (e *ServiceError) outcome() error {
	switch e.Code {
	case "TableNotFound":
		return ErrTableNotFound
	case "TableAlreadyExists", "EntityAlreadyExists":
		return ErrAlreadyExists
	case "TableBeingDeleted":
		return ErrTableBeingDeleted
	case "UpdateConditionNotSatisfied", "ConditionNotMet":
		return ErrPreconditionFailed
	case "EntityTooLarge", "RequestBodyTooLarge", "PropertyValueTooLarge":
		return ErrTooLarge
	case "ServerBusy", "OperationTimedOut":
		return ErrThrottled
	}
	switch s := e.StatusCode; {
	case s == http.StatusNotFound:
		return ErrNotFound
	case s == http.StatusPreconditionFailed:
		return ErrPreconditionFailed
	case s == http.StatusForbidden || s == http.StatusUnauthorized:
		return ErrForbidden
	case s == http.StatusRequestEntityTooLarge:
		return ErrTooLarge
	case s == http.StatusTooManyRequests || s == http.StatusServiceUnavailable:
		return ErrThrottled
	case s == http.StatusConflict && e.Code == "":
		return ErrAlreadyExists
	}
	return ErrService
}

// ValidationError is bad input refused before any request: which field
// (property, option, argument or Go struct field) breaks which rule.
// Values are never included: they may be large, secret or both.
type ValidationError struct {
	Operation string // the call, e.g. "add", "query", "New"; may be empty
	Field     string // the property, option, argument or Go field
	Index     int    // the operation in a transaction or bulk write; -1 otherwise
	Rule      string // the rule broken
	Detail    string // sizes or bounds, never the value
	Err       error  // an underlying error, if any
}

// Error names the call, the operation, the field and the rule; never the value.
func (e *ValidationError) Error() string {
	var b strings.Builder
	b.WriteString("tablekit: invalid ")
	writeWhere(&b, e.Operation, e.Index)
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Rule)
	if e.Detail != "" {
		b.WriteString(" (")
		b.WriteString(e.Detail)
		b.WriteString(")")
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Is makes errors.Is(err, ErrInvalid) true.
func (e *ValidationError) Is(target error) bool { return target == ErrInvalid }

// Unwrap returns the underlying error, if any.
func (e *ValidationError) Unwrap() error { return e.Err }

// DecodeError names the stored property that does not fit the Go type.
type DecodeError struct {
	Property string // the stored property; empty for the entity as a whole
	Reason   string // what does not fit: the EDM type, the Go field, the range
	Err      error  // an underlying error, if any
}

// Error names the property and what does not fit.
func (e *DecodeError) Error() string {
	if e.Property == "" {
		return ErrDecode.Error() + ": " + e.Reason
	}
	return ErrDecode.Error() + ": property " + e.Property + ": " + e.Reason
}

// Is makes errors.Is(err, ErrDecode) true.
func (e *DecodeError) Is(target error) bool { return target == ErrDecode }

// Unwrap returns the underlying error, if any.
func (e *DecodeError) Unwrap() error { return e.Err }

// MaybeCommittedError is a write whose outcome is unknown (ErrMaybeCommitted).
// Err is the last attempt's failure: a response errors.As reaches as
// *azcore.ResponseError (409, 412 or 404), or the lost or unreadable reply.
type MaybeCommittedError struct {
	Operation string // the call, e.g. "add", "update", "transaction"
	Attempts  int    // attempts made, the last one included
	Err       error
}

// Error says what happened without the request's URL or body.
func (e *MaybeCommittedError) Error() string {
	var b strings.Builder
	b.WriteString(ErrMaybeCommitted.Error())
	b.WriteString(" (")
	b.WriteString(e.Operation)
	if e.Attempts > 0 {
		b.WriteString(": attempt ")
		b.WriteString(strconv.Itoa(e.Attempts))
	}
	var re *azcore.ResponseError
	var ue *url.Error
	switch {
	case errors.As(e.Err, &re):
		b.WriteString(" got ")
		b.WriteString(strconv.Itoa(re.StatusCode))
		if re.ErrorCode != "" {
			b.WriteString(" ")
			b.WriteString(re.ErrorCode)
		}
		b.WriteString(" after an attempt that may have reached the service")
	case errors.As(e.Err, &ue):
		b.WriteString(": ")
		b.WriteString(ue.Op)
		b.WriteString(": ")
		b.WriteString(ue.Err.Error())
	case e.Err != nil:
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	b.WriteString(")")
	return b.String()
}

// Is makes errors.Is(err, ErrMaybeCommitted) true.
func (e *MaybeCommittedError) Is(target error) bool { return target == ErrMaybeCommitted }

// Unwrap returns the last attempt's failure.
func (e *MaybeCommittedError) Unwrap() error { return e.Err }

// writeWhere writes the call and, in a transaction or bulk write, the
// operation's index, each followed by ": ".
func writeWhere(b *strings.Builder, operation string, index int) {
	if operation != "" {
		b.WriteString(operation)
		b.WriteString(": ")
	}
	if index >= 0 {
		b.WriteString("operation ")
		b.WriteString(strconv.Itoa(index))
		b.WriteString(": ")
	}
}
