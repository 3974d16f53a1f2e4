package table_test

import (
	"errors"
	"testing"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/table"
)

// zeroValues holds a zero value of every exported type of the package.
var zeroValues = map[string]any{
	"ListTablesOptions": new(table.ListTablesOptions), "Stats": new(table.Stats),
	"Service": new(table.Service), "Backend": new(table.Backend),
	"ConnectionString": new(table.ConnectionString),
	"GUID":             new(table.GUID), "Options": new(table.Options), "LocationMode": new(table.LocationMode),
	"ReadLocations": new(table.ReadLocations), "Mode": new(table.Mode),
	"Meta": new(table.Meta), "Table": new(table.Table[keyed]),
	"GetOptions": new(table.GetOptions),
	"Entity":     new(table.Entity),
	"RawEntity":  new(table.RawEntity),
	"Rate":       new(table.Rate), "RateEvent": new(table.RateEvent),
}

// TestZeroValuesDoNotPanic calls every exported method of every exported
// type on a zero value with zero arguments: each returns, none panics.
func TestZeroValuesDoNotPanic(t *testing.T) {
	testenv.CheckZeroValues(t, zeroValues)
}

// TestNilArguments checks the constructors with nil inputs.
func TestNilArguments(t *testing.T) {
	calls := []struct {
		name string
		call func() error
	}{
		{"New(nil)", func() error { _, err := table.New[keyed](nil, "name"); return err }},
		{"Wrap(nil)", func() error { _, err := table.Wrap[keyed](nil, "name"); return err }},
	}
	for _, c := range calls {
		t.Run(c.name, func(t *testing.T) {
			if err := c.call(); !errors.Is(err, tablekit.ErrInvalid) {
				t.Errorf("err = %v, want tablekit.ErrInvalid", err)
			}
		})
	}
}
