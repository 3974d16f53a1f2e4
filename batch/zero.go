package batch

import (
	"github.com/tablekit/tablekit/internal/core"
	"github.com/tablekit/tablekit/internal/errmap"
	"github.com/tablekit/tablekit/table"
)

// Nil tables and zero Transactions are programming errors, reported as
// tablekit.ErrInvalid before anything else, never as panics.
var (
	errNilTable = errmap.Invalid("batch", "table", "nil or zero table (open tables with table.New)")
	errZeroTx   = errmap.Invalid("batch", "Transaction", "zero Transaction (start transactions with batch.New)")
)

// usable reports a table that table.New did not make.
func usable[T any](t *table.Table[T]) error {
	if !(*core.Table)(t).Usable() {
		return errNilTable
	}
	return nil
}

// errEmpty: a transaction needs at least one operation.
var errEmpty = errmap.Invalid("transaction", "operations", "a transaction needs at least one")
