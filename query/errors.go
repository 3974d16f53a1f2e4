package query

import "errors"

var (
	// ErrInvalidFilter reports a filter that cannot be built: an invalid
	// property name, literal, Raw text, or too many comparisons. Nothing was
	// sent.
	ErrInvalidFilter = errors.New("query: invalid filter")
	// ErrTableScan is returned by a query marked NoTableScan whose filter (or
	// one of whose parallel segments) is a table scan. Nothing was sent.
	ErrTableScan = errors.New("query: table scan refused (NoTableScan)")
	// ErrInvalidToken: a continuation token that this package did not make
	// (truncated, edited, or of a newer format).
	ErrInvalidToken = errors.New("query: invalid continuation token")
	// ErrTokenMismatch: a continuation token made by a different query
	// (another table, filter, projection or set of segments). Resuming it
	// would return wrong data, so it is refused.
	ErrTokenMismatch = errors.New("query: continuation token belongs to a different query")
	// ErrBadContinuation: the service answered a page with a continuation
	// that cannot be followed (one that does not advance, or a NextRowKey
	// without a NextPartitionKey). Following it would loop forever or skip
	// entities, so the query ends with this error; its token still resumes
	// from the last entity returned.
	ErrBadContinuation = errors.New("query: the service returned a continuation that cannot be followed")
)

// errRunStalled would mean the parallel scheduler waits for a page that no
// request will bring; it is a bug, reported rather than hung on.
var errRunStalled = errors.New("query: internal error: parallel run waits with no request in flight")
