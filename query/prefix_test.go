package query

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/table"
)

// TestErrorsSayEachPrefixOnce walks the errors a query reports before any
// request, several of which wrap package table's, and fails on a message
// that repeats a package prefix; each must still match its sentinels.
func TestErrorsSayEachPrefixOnce(t *testing.T) {
	svc, err := table.NewService("UseDevelopmentStorage=true", nil)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := table.New[item](svc, "prefixes")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	run := func(q Query[item]) error { _, err := Collect(q.All(ctx)); return err }
	_, tokenErr := New(tbl).Resume("garbage")
	_, parallelErr := New(tbl).Parallel(PartitionSegments("a"), &ParallelOptions{Parallelism: MaxParallelism + 1})
	for _, c := range []struct {
		name string
		err  error
		is   []error
	}{
		{"page size", run(New(tbl).PageSize(0)), []error{tablekit.ErrInvalid}},
		{"limit", run(New(tbl).Limit(-1)), []error{tablekit.ErrInvalid}},
		{"point, empty key", run(New(tbl).Where(Point("", "r"))), []error{tablekit.ErrInvalid}},
		{"Select of no property", run(New(tbl).Select("Nope")), []error{tablekit.ErrInvalid}},
		{"filter on no property", run(New(tbl).Where(Property("Nope").Eq(Int32(1)))), []error{tablekit.ErrInvalid}},
		{"literal type", run(New(tbl).Where(Property("N").Eq(Int64(1)))), []error{tablekit.ErrInvalid}},
		{"NaN literal", run(New(tbl).Where(Property("F").Eq(Double(math.NaN())))), []error{tablekit.ErrInvalid}},
		{"table scan refused", run(New(tbl).NoTableScan()), []error{tablekit.ErrInvalid}},
		{"token", tokenErr, []error{tablekit.ErrInvalid}},
		{"parallelism", parallelErr, []error{tablekit.ErrInvalid}},
		{"nil table", run(New[item](nil)), []error{tablekit.ErrInvalid}},
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
