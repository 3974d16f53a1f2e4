package query

import (
	"reflect"
	"testing"
	"time"

	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/table"
)

// TestWrapQuery: a query over a table given to table.Wrap (pages fetched by
// aztables' pager, which re-encodes every entity) returns what the same
// query over the table tablekit built returns, page by page, with
// projection and continuation.
func TestWrapQuery(t *testing.T) {
	built := testenv.NewTable[item](t, newService(t, "", nil))
	var all []item
	for r := range 25 {
		all = append(all, makeItem(1, r))
	}
	load(t, built, all)
	wrapped, err := table.Wrap[item](built.Client(), built.Name())
	if err != nil {
		t.Fatal(err)
	}
	ctx := testenv.Context(t, time.Minute)
	for _, q := range []func(*table.Table[item]) Query[item]{
		func(tb *table.Table[item]) Query[item] { return New(tb).Where(Partition("p01")).PageSize(7) },
		func(tb *table.Table[item]) Query[item] {
			return New(tb).Where(Partition("p01")).Select("N", "When", "Bin").PageSize(10).Limit(12)
		},
		func(tb *table.Table[item]) Query[item] { return New(tb).Where(Point("p01", "r0003")) },
	} {
		want, err := Collect(q(built).All(ctx))
		if err != nil {
			t.Fatal(err)
		}
		got, err := Collect(q(wrapped).All(ctx))
		if err != nil {
			t.Fatal(err)
		}
		if len(want) == 0 || !reflect.DeepEqual(got, want) {
			t.Errorf("%v: Wrap got %d entities, want %d:\n got %+v\nwant %+v", q(built).Filter(), len(got), len(want), got, want)
		}
	}
}
