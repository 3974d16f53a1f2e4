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
)

// errRunStalled would mean the parallel scheduler waits for a page that no
// request will bring; it is a bug, reported rather than hung on.
var errRunStalled = errors.New("query: internal error: parallel run waits with no request in flight")
