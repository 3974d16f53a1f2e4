package batch_test

import (
	"errors"
	"testing"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/batch"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/table"
)

// TestEmptyKeysRefused checks that transactions and bulk writes refuse an
// empty key with tablekit.ErrInvalid before any request, as every call does.
func TestEmptyKeysRefused(t *testing.T) {
	rec := &batchRecorder{}
	tbl := newRecordedTable(t, rec, nil)
	ctx := testenv.Ctx(t)
	ops := []struct {
		name string
		op   batch.Op[item]
	}{
		{"upsert empty PartitionKey", batch.Op[item]{Entity: item{RowKey: "r"}}},
		{"add empty RowKey", batch.Op[item]{Kind: batch.Add, Entity: item{PartitionKey: "p"}}},
		{"update empty RowKey", batch.Op[item]{Kind: batch.Update, Entity: item{PartitionKey: "p"}, Mode: table.Merge, ETag: table.AnyETag}},
		{"delete empty PartitionKey", batch.Op[item]{Kind: batch.Delete, RowKey: "r", ETag: table.AnyETag}},
		{"delete empty RowKey", batch.Op[item]{Kind: batch.Delete, PartitionKey: "p", ETag: table.AnyETag}},
	}
	for _, tc := range ops {
		t.Run(tc.name, func(t *testing.T) {
			before, _ := rec.snapshot()
			_, err := batch.New(tbl).Append(tc.op).Submit(ctx)
			if !errors.Is(err, tablekit.ErrInvalid) {
				t.Errorf("Submit: err = %v, want tablekit.ErrInvalid", err)
			}
			_, err = batch.Write(ctx, tbl, []batch.Op[item]{tc.op}, nil)
			if !errors.Is(err, tablekit.ErrInvalid) {
				t.Errorf("Write: err = %v, want tablekit.ErrInvalid", err)
			}
			if after, _ := rec.snapshot(); after != before {
				t.Errorf("sent %d requests, want 0", after-before)
			}
		})
	}
}
