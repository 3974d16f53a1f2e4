package query

import (
	"github.com/tablekit/tablekit/internal/backend"
	"github.com/tablekit/tablekit/internal/codec"
	"github.com/tablekit/tablekit/internal/errmap"
)

// errZeroCursor reports a Cursor or ParallelCursor not made by Resume,
// Run or Parallel: an error, never a panic.
var errZeroCursor = errmap.Invalid("query", "options", "zero cursor (make cursors with Query.Resume or Query.Parallel)")

// emptyKey is the tablekit.ErrInvalid of an empty PartitionKey or RowKey, the one
// rule every tablekit call applies (see codec.RuleKeyEmpty for why). A
// filter knows no table: the rules are those of every backend.
func emptyKey(pk, rk string) error {
	lenient := backend.Lenient()
	if err := codec.CheckKey(&lenient, "PartitionKey", pk); err != nil && pk == "" {
		return err
	}
	return codec.CheckKey(&lenient, "RowKey", rk)
}
