package table_test

import (
	"sync/atomic"
	"testing"

	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/internal/fastpath"
	"github.com/tablekit/tablekit/table"
)

// A handle made with As is the same table in every respect but its type:
// its writes and reads take the fast path like the table's own, and none
// when the table has none (TABLEKIT_FAST_PATH=off).
func TestAsKeepsTheFastPath(t *testing.T) {
	fast := !testenv.FastPathOff()
	typed, _ := newTable[keyed](t, nil)
	dyn, err := table.As[table.Entity](typed)
	if err != nil {
		t.Fatal(err)
	}
	var swaps atomic.Int64
	ctx := fastpath.Counting(ctxT(t), &swaps)
	e := table.NewEntity("p", "r")
	e.Properties["N"] = int64(7)
	if _, err := dyn.Add(ctx, e, nil); err != nil {
		t.Fatal(err)
	}
	if got := swaps.Load(); (got > 0) != fast {
		t.Errorf("Add through As: %d swaps, want the fast path taken: %v", got, fast)
	}
	before := swaps.Load()
	got, err := dyn.Get(ctx, "p", "r", nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := swaps.Load() - before; (n > 0) != fast {
		t.Errorf("Get through As: %d swaps, want the fast path taken: %v", n, fast)
	}
	if got, want := got.Properties["N"], int64(7); got != want {
		t.Errorf("N: got %v (%T), want %v", got, got, want)
	}
}
