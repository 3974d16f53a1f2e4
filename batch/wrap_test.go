package batch_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/batch"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/table"
)

// TestWrapTransactions: transactions on a table given to table.Wrap (sent
// by aztables' SubmitTransaction, which encodes the entities itself) give
// the same results and errors as on a table tablekit built (the body
// tablekit writes).
func TestWrapTransactions(t *testing.T) {
	built := newRecordedTable(t, nil, nil)
	env := testenv.Azurite(t)
	wrapped, err := table.Wrap[item](env.Client(t, built.Name(), table.ClientOptions(nil)), built.Name())
	if err != nil {
		t.Fatal(err)
	}
	type outcome struct {
		ops   int
		index int   // of the failed operation; -1 when none
		err   error // the sentinel the failure matches
		rows  map[string]item
	}
	ctx := testenv.Ctx(t)
	run := func(tb *table.Table[item], pk string) outcome {
		tx := batch.New(tb).
			Add(item{PartitionKey: pk, RowKey: "a", N: 1, S: "<&> ü \u2028"}).
			Upsert(item{PartitionKey: pk, RowKey: "b", N: 2, B: []byte{0, 1, 2}}, table.Replace).
			Upsert(item{PartitionKey: pk, RowKey: "c", N: 3, T: "x"}, table.Merge)
		res, err := tx.Submit(ctx)
		if err != nil {
			t.Fatalf("%s: %v", pk, err)
		}
		// A second transaction whose second operation fails.
		_, err = batch.New(tb).
			Update(item{PartitionKey: pk, RowKey: "b", N: 20}, table.Merge, res[1].ETag).
			Add(item{PartitionKey: pk, RowKey: "a", N: 9}).
			Delete(pk, "c", table.AnyETag).
			Submit(ctx)
		o := outcome{ops: len(res), index: -1, rows: map[string]item{}}
		var oe *tablekit.ServiceError
		if errors.As(err, &oe) {
			o.index = oe.Index
		}
		if errors.Is(err, tablekit.ErrAlreadyExists) {
			o.err = tablekit.ErrAlreadyExists
		}
		for rk, e := range readAll(t, tb) {
			if e.PartitionKey == pk {
				e.PartitionKey, e.Meta = "", table.Meta{}
				o.rows[rk[len(pk):]] = e
			}
		}
		return o
	}
	got := run(wrapped, "wrapped")
	want := run(built, "built")
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Wrap:\n got %+v\nwant %+v (built by tablekit)", got, want)
	}
	if got.index != 1 || got.err == nil {
		t.Errorf("failed operation %d (%v), want 1 (tablekit.ErrAlreadyExists)", got.index, got.err)
	}
}
