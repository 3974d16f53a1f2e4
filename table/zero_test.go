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

// TestZeroServiceRaw: the aztables client of a zero or nil Service fails
// every call with the zero Service's error, before a request is sent,
// instead of a nil pointer panic inside aztables.
func TestZeroServiceRaw(t *testing.T) {
	ctx := testenv.Ctx(t)
	services := map[string]*table.Service{"nil": nil, "zero": new(table.Service)}
	for name, svc := range services {
		raw := svc.Raw()
		if raw == nil {
			t.Fatalf("%s Service: Raw() = nil, want a client that refuses every call", name)
		}
		calls := []struct {
			name string
			call func() error
		}{
			{"CreateTable", func() error { _, err := raw.CreateTable(ctx, "orders", nil); return err }},
			{"GetProperties", func() error { _, err := raw.GetProperties(ctx, nil); return err }},
			{"NewListTablesPager", func() error { _, err := raw.NewListTablesPager(nil).NextPage(ctx); return err }},
			{"NewClient.GetEntity", func() error { _, err := raw.NewClient("orders").GetEntity(ctx, "p", "r", nil); return err }},
			{"NewClient.AddEntity", func() error {
				_, err := raw.NewClient("orders").AddEntity(ctx, []byte(`{"PartitionKey":"p","RowKey":"r"}`), nil)
				return err
			}},
		}
		for _, c := range calls {
			t.Run(name+"/"+c.name, func(t *testing.T) {
				var err error
				func() {
					defer func() {
						if r := recover(); r != nil {
							t.Fatalf("panic: %v", r)
						}
					}()
					err = c.call()
				}()
				var ve *tablekit.ValidationError
				if !errors.Is(err, tablekit.ErrInvalid) || !errors.As(err, &ve) || ve.Field != "service" {
					t.Errorf("err = %v, want the zero Service's tablekit.ErrInvalid (field service)", err)
				}
			})
		}
	}
}

// A zero or nil Table's Client refuses every call as a zero Service's Raw
// does, instead of a nil client that panics inside aztables.
func TestZeroTableClient(t *testing.T) {
	ctx := testenv.Ctx(t)
	for name, tbl := range map[string]*table.Table[table.Entity]{"nil": nil, "zero": new(table.Table[table.Entity])} {
		t.Run(name, func(t *testing.T) {
			c := tbl.Client()
			if c == nil {
				t.Fatal("Client() = nil, want a client that refuses every call")
			}
			_, err := c.GetEntity(ctx, "p", "r", nil)
			var ve *tablekit.ValidationError
			if !errors.Is(err, tablekit.ErrInvalid) || !errors.As(err, &ve) || ve.Field != "service" {
				t.Errorf("err = %v, want the zero Service's tablekit.ErrInvalid (field service)", err)
			}
		})
	}
}
