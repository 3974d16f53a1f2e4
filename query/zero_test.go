package query

import (
	"errors"
	"testing"

	"github.com/tablekit/tablekit"
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
		"Segment": new(Segment), "Split": new(Split), "SplitOptions": new(SplitOptions),
	}
	testenv.CheckZeroValues(t, zero)
}

// TestNilTableQuery checks that a query of a nil table is an error.
func TestNilTableQuery(t *testing.T) {
	for _, tbl := range []*table.Table[item]{nil, new(table.Table[item])} {
		_, err := Collect(New(tbl).All(t.Context()))
		if !errors.Is(err, tablekit.ErrInvalid) {
			t.Errorf("query of %v table: err = %v, want tablekit.ErrInvalid", tbl, err)
		}
	}
}
