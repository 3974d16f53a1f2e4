package query

import (
	"errors"
	"strconv"
)

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
	// ErrPositionLost: a token taken in the middle of a page cannot be
	// resumed exactly, so it is refused rather than skip or repeat
	// entities. On a backend without key order (Cosmos DB) such a token
	// re-reads its page and checks that it starts with the entities
	// already returned; when it does not (the order changed, or entities
	// were written or deleted there), or when a token skips by key on
	// such a backend, the error is a *PositionError. A token taken at a
	// page boundary (Page.Token) needs neither.
	ErrPositionLost = errors.New("query: the token's position in its page cannot be found again")
)

// PositionError says why a token's position cannot be resumed exactly.
type PositionError struct {
	// Segment is the parallel segment whose position it is; -1 for a Cursor.
	Segment int
	// Reason says what did not match.
	Reason string
}

func (e *PositionError) Error() string {
	s := ErrPositionLost.Error()
	if e.Segment >= 0 {
		s += ": segment " + strconv.Itoa(e.Segment)
	}
	return s + ": " + e.Reason
}

// Is makes errors.Is(err, ErrPositionLost) true.
func (e *PositionError) Is(target error) bool { return target == ErrPositionLost }

// errRunStalled would mean the parallel scheduler waits for a page that no
// request will bring; it is a bug, reported rather than hung on.
var errRunStalled = errors.New("query: internal error: parallel run waits with no request in flight")
