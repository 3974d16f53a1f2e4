package batch

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
)

// Rules of one transaction, checked before any request. Each is reported
// as an [*InvalidError] that matches the sentinel with errors.Is. Invalid
// operations match the sentinels of package table instead
// (table.ErrInvalidEntity, table.ErrInvalidKey, table.ErrETagRequired,
// table.ErrInvalidOptions).
var (
	// ErrEmpty: a transaction needs at least one operation.
	ErrEmpty = errors.New("batch: transaction has no operations")
	// ErrTooManyOps: a transaction holds at most MaxOps operations.
	ErrTooManyOps = errors.New("batch: too many operations in one transaction")
	// ErrMixedPartitions: every operation of a transaction must have the
	// same PartitionKey. Azurite accepts mixed keys; the service does not.
	ErrMixedPartitions = errors.New("batch: operations on more than one PartitionKey")
	// ErrDuplicateRowKey: an entity may appear only once in a transaction.
	// The service reports it as 400 InvalidDuplicateRow, which matches too.
	ErrDuplicateRowKey = errors.New("batch: the same RowKey twice in one transaction")
	// ErrBodyTooLarge: the request body is larger than the table's backend
	// takes, counted on the bytes sent (entities, URLs, headers, multipart
	// framing).
	ErrBodyTooLarge = errors.New("batch: request body too large")
)

// Outcomes of a transaction that was sent.
var (
	// ErrRolledBack is matched by an [*OpError]: the service refused one
	// operation, so it applied none of the transaction.
	ErrRolledBack = errors.New("batch: an operation failed; nothing in the transaction was written")
	// ErrMalformedReply is matched by a [*ReplyError]: the service's answer
	// could not be read, so whether the transaction committed is unknown.
	ErrMalformedReply = errors.New("batch: unreadable transaction reply; whether it was committed is unknown")
)

// InvalidError reports a transaction or an operation that breaks a rule; it
// is returned before any request is sent. errors.Is matches the rule's
// sentinel (ErrTooManyOps, table.ErrInvalidEntity, ...); errors.As reaches
// the detail, e.g. a *table.ValidationError naming the property.
type InvalidError struct {
	// Index is the position of the offending operation in the transaction
	// (or, for Write, in the input), or -1 when the rule concerns the whole
	// transaction (ErrEmpty).
	Index int
	// Kind is the offending operation's kind (when Index >= 0).
	Kind OpKind
	// Err says which rule is broken and how.
	Err error
}

// Error names the operation and the rule.
func (e *InvalidError) Error() string {
	msg := "invalid transaction"
	if e.Err != nil {
		msg = strings.TrimPrefix(e.Err.Error(), "batch: ")
	}
	if e.Index < 0 {
		return "batch: " + msg
	}
	return "batch: operation " + strconv.Itoa(e.Index) + " (" + e.Kind.String() + "): " + msg
}

// Unwrap returns the rule's error.
func (e *InvalidError) Unwrap() error { return e.Err }

// OpError reports a transaction that the service refused because of one of
// its operations: nothing in it was written. It matches ErrRolledBack and
// the sentinel of package table for the operation's outcome
// (table.ErrAlreadyExists for 409 EntityAlreadyExists,
// table.ErrPreconditionFailed for 412, table.ErrNotFound for 404, ...).
//
// errors.As with *azcore.ResponseError finds the failed operation's own
// response (its status and error code, e.g. 409 EntityAlreadyExists), so
// retry.IsRetryable judges the operation's status (a 503 ServerBusy inside
// the reply is retryable) rather than the 202 of the whole reply, which is
// in Response.
type OpError[T any] struct {
	// Index is the failed operation's position in the transaction (in
	// the input, for errors of Write and WriteSeq), or -1 when the reply
	// did not say which one failed. The service puts it in
	// front of the message ("1:The specified entity already exists.");
	// otherwise Index comes from the position of the failed response or its
	// Content-ID.
	Index int
	// Op is the failed operation (the zero Op when Index is -1).
	Op Op[T]
	// StatusCode is the operation's HTTP status, e.g. 409.
	StatusCode int
	// Code is the service's error code, e.g. "EntityAlreadyExists".
	Code string
	// Message is the first line of the service's message, without the
	// index prefix.
	Message string
	// Err is the operation's failure as a *table.ServiceError, which
	// matches the table sentinel and wraps the operation's
	// *azcore.ResponseError.
	Err error
	// Response is the whole request's reply as an error, as aztables
	// reports it (status 202 and no error code, as the service answers a
	// failed transaction).
	Response *azcore.ResponseError
}

// Error names the operation, its status, code and message; never its keys
// or values.
func (e *OpError[T]) Error() string {
	var b strings.Builder
	b.WriteString("batch: ")
	if e.Index >= 0 {
		b.WriteString("operation ")
		b.WriteString(strconv.Itoa(e.Index))
		b.WriteString(" (")
		b.WriteString(e.Op.Kind.String())
		b.WriteString(") ")
	} else {
		b.WriteString("an operation ")
	}
	b.WriteString("failed: ")
	b.WriteString(strconv.Itoa(e.StatusCode))
	if e.Code != "" {
		b.WriteString(" ")
		b.WriteString(e.Code)
	}
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	b.WriteString("; nothing in the transaction was written")
	return b.String()
}

// Is makes ErrRolledBack match, and ErrDuplicateRowKey for the service's
// InvalidDuplicateRow.
func (e *OpError[T]) Is(target error) bool {
	return target == ErrRolledBack || (target == ErrDuplicateRowKey && e.Code == "InvalidDuplicateRow")
}

// Unwrap returns the operation's error and the whole request's error.
func (e *OpError[T]) Unwrap() []error {
	errs := []error{e.Err}
	if e.Response != nil {
		errs = append(errs, e.Response)
	}
	return errs
}

// ReplyError reports a reply that could not be read: the transaction may or
// may not have been committed. It matches ErrMalformedReply and
// retry.ErrBrokenResponse (errors.As finds a *retry.BrokenResponseError), so
// retry.IsRetryable retries it like a reply cut short.
type ReplyError struct {
	// StatusCode is the HTTP status of the reply.
	StatusCode int
	// Err says what could not be read.
	Err error
	// Response is the reply as an *azcore.ResponseError, when there was one.
	Response *azcore.ResponseError
}

// Error says that the outcome is unknown and why.
func (e *ReplyError) Error() string {
	return fmt.Sprintf("%s (status %d: %v)", ErrMalformedReply, e.StatusCode, e.Err)
}

// Is makes ErrMalformedReply match.
func (e *ReplyError) Is(target error) bool { return target == ErrMalformedReply }

// Unwrap returns the parse error as a *retry.BrokenResponseError, and the
// response error.
func (e *ReplyError) Unwrap() []error {
	errs := []error{e.asBroken()}
	if e.Response != nil {
		errs = append(errs, e.Response)
	}
	return errs
}

// errorf is fmt.Errorf for this package's wrappers: every error operand is
// wrapped (errors.Is and errors.As reach it), and a "batch: " prefix that
// the message has already said is left out of the operands after it, so
// that a wrapped failure reads "batch: not sent: operation 3 ..." rather
// than "batch: not sent: batch: operation 3 ...".
func errorf(format string, args ...any) error {
	const prefix = "batch: "
	said := strings.HasPrefix(format, prefix)
	e := &chain{}
	texts := make([]any, len(args))
	for i, a := range args {
		texts[i] = a
		if err, ok := a.(error); ok {
			e.errs = append(e.errs, err)
			msg := err.Error()
			if said {
				msg = strings.TrimPrefix(msg, prefix)
			}
			said = said || strings.HasPrefix(msg, prefix)
			texts[i] = msg
		}
	}
	e.msg = fmt.Sprintf(strings.ReplaceAll(format, "%w", "%s"), texts...)
	return e
}

// chain is an error made by errorf.
type chain struct {
	msg  string
	errs []error
}

func (e *chain) Error() string   { return e.msg }
func (e *chain) Unwrap() []error { return e.errs }
