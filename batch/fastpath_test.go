package batch_test

import (
	"errors"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tablekit/tablekit/batch"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/internal/fastpath"
	"github.com/tablekit/tablekit/table"
)

// TestFastPathTransactions: transactions give the same results and
// errors with the body tablekit writes as with aztables', and the fast path
// is really taken (its swaps are counted).
func TestFastPathTransactions(t *testing.T) {
	slow := newTable(t, nil, &table.Options{NoFastPath: true})
	env := testenv.Azurite(t)
	svc, err := table.NewServiceWithSharedKey(env.Endpoint, env.Account, env.Key, nil)
	if err != nil {
		t.Fatal(err)
	}
	fast, err := table.New[item](svc, slow.Name())
	if err != nil {
		t.Fatal(err)
	}
	type outcome struct {
		ops   int
		index int   // of the failed operation; -1 when none
		err   error // the sentinel the failure matches
		rows  map[string]item
	}
	var swaps atomic.Int64
	ctx := fastpath.Counting(ctxT(t, time.Minute), &swaps)
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
		var oe *batch.OpError[item]
		if errors.As(err, &oe) {
			o.index = oe.Index
		}
		if errors.Is(err, table.ErrAlreadyExists) {
			o.err = table.ErrAlreadyExists
		}
		for rk, e := range readAll(t, tb) {
			if e.PartitionKey == pk {
				e.PartitionKey, e.Meta = "", table.Meta{}
				o.rows[rk[len(pk):]] = e
			}
		}
		return o
	}
	got := run(fast, "fast")
	// Each transaction swaps its body and its reply.
	if n := swaps.Load(); n != 4 {
		t.Errorf("fast path: %d swaps, want 4", n)
	}
	want := run(slow, "slow")
	if n := swaps.Load(); n != 4 {
		t.Errorf("fallback: %d swaps, want none", n-4)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("fast path:\n got %+v\nwant %+v (fallback)", got, want)
	}
	if got.index != 1 || got.err == nil {
		t.Errorf("failed operation %d (%v), want 1 (ErrAlreadyExists)", got.index, got.err)
	}
}
