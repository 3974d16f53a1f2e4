package query

import (
	"errors"
	"slices"
	"testing"

	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/table"
)

// TestZeroValuesDoNotPanic calls every exported method of every exported
// type on a zero value with zero arguments: each returns, none panics.
func TestZeroValuesDoNotPanic(t *testing.T) {
	zero := map[string]any{
		"Page": new(Page[item]), "Cursor": new(Cursor[item]), "Filter": new(Filter),
		"Property": new(Property), "Value": new(Value), "ParallelOptions": new(ParallelOptions),
		"ParallelCursor": new(ParallelCursor[item]), "Query": new(Query[item]), "Scope": new(Scope),
		"Segment": new(Segment),
	}
	var listed []string
	for name := range zero {
		listed = append(listed, name)
	}
	slices.Sort(listed)
	if got := testenv.ExportedTypes(t, "."); !slices.Equal(got, listed) {
		t.Fatalf("exported types %v, listed %v: add the new type here", got, listed)
	}
	for name, v := range zero {
		testenv.CheckZeroMethods(t, name, v)
	}
}

// TestNilTableQuery checks that a query of a nil table is an error.
func TestNilTableQuery(t *testing.T) {
	for _, tbl := range []*table.Table[item]{nil, new(table.Table[item])} {
		_, err := Collect(New(tbl).All(t.Context()))
		if !errors.Is(err, table.ErrInvalidOptions) {
			t.Errorf("query of %v table: err = %v, want ErrInvalidOptions", tbl, err)
		}
	}
}
