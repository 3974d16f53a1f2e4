package table_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/table"
)

// misfitRow has a field of the type each misfit is annotated with.
type misfitRow struct {
	PartitionKey, RowKey string
	G                    table.GUID
	T                    time.Time
	B                    []byte
}

// TestForeignMisfitsOnAzurite: values that another client wrote and
// Azurite kept although they are not of their annotated type (the service
// refuses them) are DecodeErrors naming the property, the type and what
// is wrong, through every entity type: never a value of another type.
func TestForeignMisfitsOnAzurite(t *testing.T) {
	ctx := testenv.Ctx(t)
	tbl, _ := newRecordedTable[misfitRow](t, nil)
	dyn, err := table.As[table.Entity](tbl)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := table.As[table.RawEntity](tbl)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ prop, edm, value, reason string }{
		{"G", "Edm.Guid", `"zz"`, "Edm.Guid value is not a GUID"},
		{"T", "Edm.DateTime", `"yesterday"`, "Edm.DateTime value is not an RFC 3339 time"},
		{"B", "Edm.Binary", `"!!"`, "Edm.Binary value is not base64"},
	} {
		body := `{"PartitionKey":"p","RowKey":"` + c.prop + `","` + c.prop + `@odata.type":"` + c.edm + `","` + c.prop + `":` + c.value + `}`
		if _, err := tbl.Client().AddEntity(ctx, []byte(body), nil); err != nil {
			t.Fatalf("%s: the other client's write: %v", c.prop, err)
		}
		check := func(what string, err error) {
			t.Helper()
			var de *tablekit.DecodeError
			if !errors.As(err, &de) || !errors.Is(err, tablekit.ErrDecode) || de.Property != c.prop || !strings.Contains(de.Reason, c.reason) {
				t.Errorf("%s of %s: err = %v, want a tablekit.DecodeError for %s: %s", what, c.prop, err, c.prop, c.reason)
			}
		}
		_, err := tbl.Get(ctx, "p", c.prop, nil)
		check("struct", err)
		_, err = dyn.Get(ctx, "p", c.prop, nil)
		check("Entity", err)
		_, err = raw.Get(ctx, "p", c.prop, nil)
		check("RawEntity", err)
	}

	// Azurite drops the Int32 annotation of a value beyond Int32's range
	// (the service refuses it): what comes back is an Int64 by its form.
	body := `{"PartitionKey":"p","RowKey":"big","N@odata.type":"Edm.Int32","N":2147483648}`
	if _, err := tbl.Client().AddEntity(ctx, []byte(body), nil); err != nil {
		t.Fatal(err)
	}
	e, err := dyn.Get(ctx, "p", "big", nil)
	if err != nil || e.Properties["N"] != int64(2147483648) {
		t.Errorf("Entity N = %#v, %v; want int64 2147483648", e.Properties["N"], err)
	}
}

// TestRawEntityMisfitNotSent: a RawEntity whose value is not of its
// annotated type is a tablekit.ValidationError before any request.
func TestRawEntityMisfitNotSent(t *testing.T) {
	ctx := testenv.Ctx(t)
	raw, rec := newRecordedTable[table.RawEntity](t, nil)
	before := rec.Count()
	for _, c := range []struct{ props, prop, detail string }{
		{`{"X@odata.type":"Edm.Int32","X":2147483648}`, "X", "Edm.Int32 value out of range"},
		{`{"X@odata.type":"Edm.Int32","X":"5"}`, "X", "Edm.Int32 value is a JSON string, not a JSON number"},
		{`{"X@odata.type":"Edm.Int64","X":5}`, "X", "Edm.Int64 value is a JSON number, not a JSON string"},
		{`{"X":1,"X@odata.type":"Edm.Guid"}`, "X", "Edm.Guid value is a JSON number"},
	} {
		_, err := raw.Upsert(ctx, table.RawEntity{PartitionKey: "p", RowKey: "r", Properties: []byte(c.props)}, table.Replace)
		var ve *tablekit.ValidationError
		if !errors.As(err, &ve) || !errors.Is(err, tablekit.ErrInvalid) || ve.Field != c.prop || !strings.Contains(ve.Detail, c.detail) {
			t.Errorf("%s: err = %v, want a tablekit.ValidationError for %s: %s", c.props, err, c.prop, c.detail)
		}
	}
	if n := rec.Count() - before; n != 0 {
		t.Errorf("%d requests sent, want none", n)
	}
}
