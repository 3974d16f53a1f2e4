package batch_test

import (
	"errors"
	"testing"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/batch"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/table"
)

// TestErrorsSayEachPrefixOnce walks the errors of invalid transactions
// and writes, which wrap package table's, and fails on a message that
// repeats a package prefix ("batch: operation 0 (Delete): PartitionKey:
// table: invalid key: table: invalid entity: ..." did); each must still
// match its sentinels.
func TestErrorsSayEachPrefixOnce(t *testing.T) {
	ctx := testenv.Ctx(t)
	items := newRecordedTable(t, nil, nil)
	_, deleteErr := batch.New(items).Delete("", "r", table.AnyETag).Submit(ctx)
	_, badKeyErr := batch.New(items).Delete("p", "a/b", table.AnyETag).Submit(ctx)
	_, invalidErr := batch.New(items).Add(item{PartitionKey: "p", RowKey: "r", S: "\xff"}).Submit(ctx)
	_, mixedErr := batch.New(items).Add(item{PartitionKey: "p", RowKey: "r"}).Add(item{PartitionKey: "q", RowKey: "r"}).Submit(ctx)
	_, writeErr := batch.Write(ctx, items, []batch.Op[item]{{Entity: item{PartitionKey: "p", RowKey: "r", S: "\xff"}}}, nil)
	if _, err := items.Add(ctx, item{PartitionKey: "p", RowKey: "exists"}); err != nil {
		t.Fatal(err)
	}
	_, conflictErr := batch.Write(ctx, items, []batch.Op[item]{{Kind: batch.Add, Entity: item{PartitionKey: "p", RowKey: "exists"}}}, nil)
	for _, c := range []struct {
		name string
		err  error
		is   []error
	}{
		{"Delete, empty key", deleteErr, []error{tablekit.ErrInvalid}},
		{"Delete, bad key", badKeyErr, []error{tablekit.ErrInvalid}},
		{"invalid entity", invalidErr, []error{tablekit.ErrInvalid}},
		{"mixed partitions", mixedErr, []error{tablekit.ErrInvalid}},
		{"Write, invalid entity", writeErr, []error{tablekit.ErrIncomplete, tablekit.ErrInvalid}},
		{"Write, conflict", conflictErr, []error{tablekit.ErrIncomplete, tablekit.ErrAlreadyExists}},
	} {
		if c.err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		if p := testenv.RepeatedPrefix(c.err.Error()); p != "" {
			t.Errorf("%s: %q says %q twice", c.name, c.err, p)
		}
		for _, target := range c.is {
			if !errors.Is(c.err, target) {
				t.Errorf("%s: %v does not match %v", c.name, c.err, target)
			}
		}
	}
}
