package query

import (
	"errors"
	"testing"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/internal/core"
	"github.com/tablekit/tablekit/table"
)

// Parallel refuses more requests in flight than the table's connection pool
// holds: above it, connections would be opened and closed all the time.
func TestParallelismBoundedByPool(t *testing.T) {
	svc, err := table.NewService("UseDevelopmentStorage=true", &table.Options{PoolSize: 4})
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := table.New[item](svc, "poolcheck")
	if err != nil {
		t.Fatal(err)
	}
	if got := (*core.Table)(tbl).PoolSize(); got != 4 {
		t.Fatalf("PoolSize() = %d, want 4", got)
	}
	q := New(tbl)
	if _, err := q.Parallel(ShardSegments(8), &ParallelOptions{Parallelism: 8}); !errors.Is(err, tablekit.ErrInvalid) {
		t.Errorf("parallelism 8 over a pool of 4: err = %v, want tablekit.ErrInvalid", err)
	}
	if _, err := q.Parallel(ShardSegments(8), &ParallelOptions{Parallelism: 4}); err != nil {
		t.Errorf("parallelism 4 over a pool of 4: %v", err)
	}
	def, _ := table.NewService("UseDevelopmentStorage=true", nil)
	if tb, _ := table.New[item](def, "poolcheck"); (*core.Table)(tb).PoolSize() != table.DefaultPoolSize {
		t.Errorf("default PoolSize() = %d, want %d", (*core.Table)(tb).PoolSize(), table.DefaultPoolSize)
	}
	custom, _ := table.NewService("UseDevelopmentStorage=true", &table.Options{Transport: testenv.TunedClient()})
	if tb, _ := table.New[item](custom, "poolcheck"); (*core.Table)(tb).PoolSize() != 0 {
		t.Errorf("caller transport: PoolSize() = %d, want 0 (unknown)", (*core.Table)(tb).PoolSize())
	}
}
