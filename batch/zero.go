package batch

import (
	"fmt"

	"github.com/tablekit/tablekit/internal/core"
	"github.com/tablekit/tablekit/table"
)

// Nil tables and zero Transactions are programming errors, reported as
// table.ErrInvalidOptions before anything else, never as panics.
var (
	errNilTable = fmt.Errorf("%w: batch: nil or zero table (open tables with table.New)", table.ErrInvalidOptions)
	errZeroTx   = fmt.Errorf("%w: batch: zero Transaction (start transactions with batch.New)", table.ErrInvalidOptions)
)

// usable reports a table that table.New did not make.
func usable[T any](t *table.Table[T]) error {
	if !(*core.Table)(t).Usable() {
		return errNilTable
	}
	return nil
}
