package table

import (
	"cmp"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"

	"github.com/tablekit/tablekit/internal/codec"
	"github.com/tablekit/tablekit/internal/wire"
	"github.com/tablekit/tablekit/retry"
)

// Outcome sentinels. Every error from this package matches at most one of
// the service outcomes with errors.Is; the *azcore.ResponseError behind a
// service error stays reachable with errors.As.
var (
	// ErrNotFound: the entity does not exist (404 ResourceNotFound).
	ErrNotFound = errors.New("table: entity not found")
	// ErrTableNotFound: the table does not exist (404 TableNotFound).
	ErrTableNotFound = errors.New("table: table not found")
	// ErrAlreadyExists: Add found an entity with the same keys (409 EntityAlreadyExists).
	ErrAlreadyExists = errors.New("table: entity already exists")
	// ErrTableExists: the table exists (409 TableAlreadyExists).
	ErrTableExists = errors.New("table: table already exists")
	// ErrTableBeingDeleted: a table of this name is still being deleted; the
	// service takes 40 s or more (409 TableBeingDeleted). Retryable on create.
	ErrTableBeingDeleted = errors.New("table: table is being deleted")
	// ErrPreconditionFailed: the ETag did not match, someone else changed or
	// deleted the entity since it was read (412). Read again and retry.
	ErrPreconditionFailed = errors.New("table: precondition failed (ETag mismatch)")
	// ErrForbidden: authentication or authorisation failed (403), e.g. a SAS
	// without the needed permission, expired, or wrongly signed.
	ErrForbidden = errors.New("table: forbidden")
	// ErrTooLarge: the service rejected the request or entity as too large (413).
	ErrTooLarge = errors.New("table: request too large")
	// ErrThrottled: the service is busy (503 ServerBusy, 500 OperationTimedOut,
	// 429) and the retry policy gave up.
	ErrThrottled = errors.New("table: service busy")
	// ErrUnsupported: the backend does not have the call or option (Azure
	// Cosmos DB for Table has no service properties or stats, no stored
	// access policies and no secondary location). Nothing was sent.
	ErrUnsupported = errors.New("table: not supported by the backend")
	// ErrBadRequest: the service rejected the request as invalid (other 400s).
	ErrBadRequest = errors.New("table: bad request")
	// ErrService: any other failure reported by the service.
	ErrService = errors.New("table: service error")
	// ErrMaybeCommitted: a write was retried after an attempt that may have
	// reached the service, and the retry failed as the write's own success
	// would make it fail: Add found the entity (409), Update a changed ETag
	// (412), Delete a changed ETag (412). Table.Verify (AddOptions.Verify)
	// and Table.VerifyUpdate tell for sure.
	ErrMaybeCommitted = retry.ErrAmbiguous
	// ErrETagRequired: Update or Delete got an empty ETag. Pass the ETag you
	// read, or AnyETag to overwrite unconditionally.
	ErrETagRequired = errors.New("table: ETag required (pass the entity's ETag, or table.AnyETag for an unconditional write)")
	// ErrInvalidTableName: the name breaks the service's rules (3-63
	// letters and digits, starting with a letter).
	ErrInvalidTableName = errors.New("table: invalid table name")
	// ErrInvalidKey: a key passed on its own breaks the service's rules, or a
	// key is empty anywhere (aztables cannot address such an entity).
	ErrInvalidKey = codec.ErrInvalidKey
	// ErrInvalidOptions: an option value is out of range.
	ErrInvalidOptions = codec.ErrInvalidOptions

	// ErrInvalidEntity: a value breaks a service limit; the error is a
	// *ValidationError naming the property and rule. Nothing was sent.
	ErrInvalidEntity = codec.ErrInvalidEntity
	// ErrInvalidType: a Go type cannot be mapped (*TypeError), reported by New.
	ErrInvalidType = codec.ErrInvalidType
	// ErrDecode: a stored entity does not fit the Go type (*DecodeError).
	ErrDecode = codec.ErrDecode
)

type (
	// ValidationError names the property and the service rule a value breaks.
	ValidationError = codec.ValidationError
	// TypeError explains why a Go type cannot be an entity.
	TypeError = codec.TypeError
	// DecodeError names the stored property that does not fit the Go field.
	DecodeError = codec.DecodeError
)

// ServiceError is a failed request: the operation, the HTTP status and the
// service's error code, matched to an outcome sentinel. Unwrap gives both the
// sentinel and the original error (usually *azcore.ResponseError), so
// errors.Is and errors.As both work. The message never contains a URL query
// (where a SAS signature lives) or a key.
type ServiceError struct {
	Op         string // the operation, e.g. "get", "add", "query"
	StatusCode int    // HTTP status, 0 for transport failures
	Code       string // service error code, e.g. "EntityAlreadyExists"
	Message    string // first line of the service's message, if any
	Err        error  // the original error
	outcome    error
}

func (e *ServiceError) Error() string {
	var b strings.Builder
	b.WriteString(cmp.Or[error](e.outcome, ErrService).Error())
	b.WriteString(" (")
	b.WriteString(e.Op)
	if e.StatusCode != 0 {
		b.WriteString(": ")
		b.WriteString(strconv.Itoa(e.StatusCode))
	}
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

// Unwrap returns the outcome sentinel and the original error.
func (e *ServiceError) Unwrap() []error { return []error{e.outcome, e.Err} }

// MapError turns an error from aztables or azcore into a *ServiceError that
// matches an outcome sentinel. Errors that are not service responses (context
// cancellation, transport failures, tablekit's own errors) are returned as
// they are, except that a refused connection to a loopback address also
// says that no emulator is listening there and how to start one. op names
// the operation in the message. It is for code that mixes plain aztables
// calls with tablekit (listing tables, a transaction of several entity
// types), so that their errors match the same sentinels.
func MapError(op string, err error) error {
	if err == nil {
		return nil
	}
	var se *ServiceError
	if errors.As(err, &se) {
		return err
	}
	if b := brokenError(op, err); b != nil {
		return b
	}
	var re *azcore.ResponseError
	if !errors.As(err, &re) {
		return emulatorHint(err)
	}
	e := &ServiceError{Op: op, StatusCode: re.StatusCode, Code: re.ErrorCode, Err: err}
	if e.Code == "" || e.StatusCode != http.StatusForbidden {
		code, msg := serviceMessage(re)
		if e.Code == "" {
			e.Code = code
		}
		if e.StatusCode != http.StatusForbidden {
			e.Message = msg
		}
	}
	e.outcome = outcomeOf(e.StatusCode, e.Code)
	if errors.Is(err, retry.ErrAmbiguous) {
		e.outcome = ErrMaybeCommitted
	}
	return e
}

func outcomeOf(status int, code string) error {
	switch code {
	case "TableNotFound":
		return ErrTableNotFound
	case "TableAlreadyExists":
		return ErrTableExists
	case "TableBeingDeleted":
		return ErrTableBeingDeleted
	case "EntityAlreadyExists":
		return ErrAlreadyExists
	case "UpdateConditionNotSatisfied", "ConditionNotMet":
		return ErrPreconditionFailed
	case "EntityTooLarge", "RequestBodyTooLarge", "PropertyValueTooLarge":
		return ErrTooLarge
	case "ServerBusy", "OperationTimedOut":
		return ErrThrottled
	}
	switch {
	case status == http.StatusNotFound:
		return ErrNotFound
	case status == http.StatusPreconditionFailed:
		return ErrPreconditionFailed
	case status == http.StatusForbidden || status == http.StatusUnauthorized:
		return ErrForbidden
	case status == http.StatusRequestEntityTooLarge:
		return ErrTooLarge
	case status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable:
		return ErrThrottled
	case status == http.StatusConflict && code == "":
		return ErrAlreadyExists
	case status >= 400 && status < 500:
		return ErrBadRequest
	}
	return ErrService
}

// serviceMessage reads the code and the first line of the message from the
// response's OData error body (wire.ErrorBody), as package batch does for
// each operation of a transaction.
func serviceMessage(re *azcore.ResponseError) (code, msg string) {
	if re.RawResponse == nil {
		return "", ""
	}
	body, err := runtime.Payload(re.RawResponse)
	if err != nil || len(body) == 0 {
		return "", ""
	}
	code, msg = wire.ErrorBody(body)
	return code, wire.FirstLine(msg)
}
