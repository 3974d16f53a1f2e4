// Package tablekit is the error model shared by tablekit's packages; the
// library itself is in its subpackages:
//
//   - table: connections (Service), typed CRUD over one table (Table[T]),
//     entity conversion, key helpers;
//   - query: filters, paged and parallel queries, resumable tokens, Split;
//   - batch: entity group transactions and the bulk writer;
//   - retry: the one retry policy, for tablekit and for your own calls;
//   - sas: table and account SAS, stored access policies.
//
// # Errors
//
// Every error matches at most one outcome sentinel with errors.Is, and
// keeps the original error (an *azcore.ResponseError for a service's
// answer) reachable with errors.As:
//
//	if errors.Is(err, tablekit.ErrNotFound) { ... }
//
// What errors.Is and errors.As give, call by call:
//
//	failure                                  errors.Is               errors.As
//	bad input, before any request            ErrInvalid              *ValidationError (Field, Rule; Index in a
//	  (options, keys, entity, filter, token,                           transaction or bulk write; Field "scope"
//	  transaction rules, SAS fields, an                                for a NoTableScan query that would scan,
//	  unknown Mode, table.ParseGUID's text)                            "GUID" for ParseGUID)
//	Get, Update, Delete: no such entity      ErrNotFound             *ServiceError, *azcore.ResponseError
//	any call: no such table                  ErrTableNotFound        *ServiceError, *azcore.ResponseError
//	Add, Transaction Add: entity exists      ErrAlreadyExists        *ServiceError (Index in a transaction)
//	Update, Delete: ETag mismatch            ErrPreconditionFailed   *ServiceError, *azcore.ResponseError
//	401, 403 (key, SAS, permissions)         ErrForbidden            *ServiceError, *azcore.ResponseError
//	413                                      ErrTooLarge             *ServiceError
//	429, 503, 500 OperationTimedOut, after   ErrThrottled            *ServiceError, *azcore.ResponseError
//	  the retry policy gave up
//	CreateTable while the name is deleted    ErrTableBeingDeleted    *ServiceError
//	any other answer of the service          ErrService              *ServiceError (StatusCode, Code)
//	a read without a usable reply (refused,  ErrUnavailable          the cause (*net.OpError, ...)
//	  reset, timeout, a reply cut short or
//	  unreadable, a continuation that cannot
//	  be followed), after the policy gave up
//	a write whose outcome is unknown (its    ErrMaybeCommitted       *MaybeCommittedError; the last response
//	  reply lost, or a retry met its own                               as *azcore.ResponseError when there was one
//	  earlier success); Table.Verify tells
//	a stored value that does not fit T       ErrDecode               *DecodeError (Property, Reason)
//	a call the backend lacks (Cosmos DB)     ErrUnsupported          -
//	batch.Write: not every op committed      ErrIncomplete           the first failure, as above; the Summary
//	                                                                   says which operations and in which state
//	query token resumed mid-page on a        ErrPositionLost         -
//	  backend without key order
//
// Context cancellation is returned as the context's error (errors.Is
// context.Canceled or context.DeadlineExceeded).
package tablekit
