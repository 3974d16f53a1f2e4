package batch_test

import (
	"context"
	"testing"

	"github.com/tablekit/tablekit/batch"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/devtools/workload"
	"github.com/tablekit/tablekit/table"
)

// TestAllocsTransactionReply: a 100-operation transaction over the
// in-process service reads its reply into one buffer of the reply's
// Content-Length (package payload, in the retry policy) and reuses its
// request body's buffer. azcore's body download grew the reply's buffer
// from 512 bytes a quarter at a time: 222 allocations a transaction then,
// 206 now.
func TestAllocsTransactionReply(t *testing.T) {
	testenv.SkipAllocsUnderRace(t)
	tb := workload.TypedTable(&workload.Service{})
	items := workload.Items(0, batch.MaxOps)
	for i := range items {
		items[i].PartitionKey = "p"
	}
	ctx := context.Background()
	submit := func() {
		tx := batch.New(tb)
		for _, it := range items {
			tx.Upsert(it, table.Replace)
		}
		if _, err := tx.Submit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	submit()
	allocs := testing.AllocsPerRun(20, submit)
	if want := 212.0; allocs > want {
		t.Errorf("%v allocations a transaction, want at most %v", allocs, want)
	}
}
