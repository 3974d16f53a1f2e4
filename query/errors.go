package query

import (
	"errors"
	"fmt"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/internal/errmap"
)

// errTokenMismatch: a continuation token made by a different query
// (another table, filter, projection or set of segments). Resuming it
// would return wrong data, so it is refused.
var errTokenMismatch = errmap.Invalid("query", "token", "belongs to a different query")

// positionLost is the tablekit.ErrPositionLost error of a token whose
// position in segment (-1 for a Cursor) cannot be resumed exactly.
func positionLost(segment int, reason string) error {
	if segment >= 0 {
		return fmt.Errorf("query: %w: segment %d: %s", tablekit.ErrPositionLost, segment, reason)
	}
	return fmt.Errorf("query: %w: %s", tablekit.ErrPositionLost, reason)
}

// errRunStalled would mean the parallel scheduler waits for a page that no
// request will bring; it is a bug, reported rather than hung on.
var errRunStalled = errors.New("query: internal error: parallel run waits with no request in flight")
