package batch_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/batch"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/table"
)

// TestZeroValuesDoNotPanic calls every exported method of every exported
// type on a zero value with zero arguments: each returns, none panics.
func TestZeroValuesDoNotPanic(t *testing.T) {
	zero := map[string]any{

		"OpKind": new(batch.OpKind), "Op": new(batch.Op[item]),
		"Progress": new(batch.Progress), "State": new(batch.State), "Chunk": new(batch.Chunk),
		"Summary": new(batch.Summary), "OpResult": new(batch.OpResult),
		"Transaction": new(batch.Transaction[item]), "WriteOptions": new(batch.WriteOptions),
	}
	testenv.CheckZeroValues(t, zero)
}

// TestNilTable checks the functions that take a table with a nil one.
func TestNilTable(t *testing.T) {
	ctx := context.Background()
	ops := []batch.Op[item]{{Entity: item{PartitionKey: "p", RowKey: "r"}}}
	calls := []struct {
		name string
		call func() error
	}{
		{"Write", func() error { _, err := batch.Write(ctx, nil, ops, nil); return err }},
		{"WriteSeq", func() error { _, err := batch.WriteSeq(ctx, nil, slices.Values(ops), nil); return err }},
		{"New.Submit", func() error { _, err := batch.New[item](nil).Append(ops...).Submit(ctx); return err }},
		{"New.Validate", func() error { return batch.New[item](nil).Append(ops...).Validate() }},
		{"zero Table", func() error { _, err := batch.Write(ctx, new(table.Table[item]), ops, nil); return err }},
	}
	for _, c := range calls {
		t.Run(c.name, func(t *testing.T) {
			if err := c.call(); !errors.Is(err, tablekit.ErrInvalid) {
				t.Errorf("err = %v, want tablekit.ErrInvalid", err)
			}
		})
	}
}
