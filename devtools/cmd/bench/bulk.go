package main

import (
	"context"
	"fmt"

	"github.com/tablekit/tablekit/batch"
	"github.com/tablekit/tablekit/devtools/workload"
)

// bulkWriter is tablekit's bulk load as a user writes it: one op per entity
// (the default op, an upsert that replaces) and batch.Write with default
// options, on a table with default options.
func (b *bench) bulkWriter() func(ctx context.Context, endpoint, name string, items []workload.Item) (int, error) {
	return func(ctx context.Context, ep, name string, items []workload.Item) (int, error) {
		tbl, err := tkTable(ep, name, nil)
		if err != nil {
			return 0, err
		}
		ops := make([]batch.Op[workload.Item], len(items))
		for i := range items {
			ops[i] = batch.Op[workload.Item]{Entity: items[i]}
		}
		sum, err := batch.Write(ctx, tbl, ops, nil)
		if err != nil {
			return sum.Ops, fmt.Errorf("batch.Write: %w", err)
		}
		return sum.Ops, nil
	}
}
