package table_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/table"
)

// rawTable returns a new table as Entity and, the same table, as
// RawEntity.
func rawTable(t *testing.T) (*table.Table[table.Entity], *table.Table[table.RawEntity]) {
	t.Helper()
	dyn, _ := newRecordedTable[table.Entity](t, nil)
	raw, err := table.As[table.RawEntity](dyn)
	if err != nil {
		t.Fatal(err)
	}
	return dyn, raw
}

// TestRawEntityRoundTrip copies every EDM type through RawEntity: read raw,
// written raw under another key, read back as an Entity, the values and
// their types must be those of the source.
func TestRawEntityRoundTrip(t *testing.T) {
	ctx := testenv.Ctx(t)
	dyn, raw := rawTable(t)
	src := table.Entity{PartitionKey: "p'1", RowKey: "src", Properties: edges()}
	src.Properties["DOne"] = 1.0 // whole Doubles must stay Doubles
	src.Properties["DZero"] = 0.0
	if _, err := dyn.Add(ctx, src); err != nil {
		t.Fatal(err)
	}
	want, err := dyn.Get(ctx, src.PartitionKey, src.RowKey, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := raw.Get(ctx, src.PartitionKey, src.RowKey, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.PartitionKey != src.PartitionKey || got.RowKey != src.RowKey || got.ETag != want.ETag || !got.Timestamp.Equal(want.Timestamp) {
		t.Errorf("keys and meta: got %q %q %q %v, want %q %q %q %v", got.PartitionKey, got.RowKey, got.ETag, got.Timestamp,
			src.PartitionKey, src.RowKey, want.ETag, want.Timestamp)
	}
	for _, leak := range []string{`"odata.`, `"Timestamp`, `"PartitionKey"`, `"RowKey"`} {
		if strings.Contains(string(got.Properties), leak) {
			t.Errorf("Properties hold %s: %.200s", leak, got.Properties)
		}
	}
	got.RowKey = "copy"
	if _, err := raw.Upsert(ctx, got, table.Replace); err != nil {
		t.Fatal(err)
	}
	back, err := dyn.Get(ctx, src.PartitionKey, "copy", nil)
	if err != nil {
		t.Fatal(err)
	}
	checkProps(t, back.Properties, want.Properties)
	for _, n := range []string{"DOne", "DZero"} {
		if _, ok := back.Properties[n].(float64); !ok {
			t.Errorf("%s: got %T, want float64", n, back.Properties[n])
		}
	}
}

// TestRawEntityNumbersByForm: numbers without an annotation are typed by
// their form when written back, as Entity reads them.
func TestRawEntityNumbersByForm(t *testing.T) {
	ctx := testenv.Ctx(t)
	dyn, raw := rawTable(t)
	for _, c := range []struct {
		props string
		want  any
	}{
		{`{"N":7}`, int32(7)},
		{`{"N":1.0}`, 1.0},
		{`{"N":2e3}`, 2000.0},
		{`{"N@odata.type":"Edm.Double","N":3}`, 3.0},
	} {
		e := table.RawEntity{PartitionKey: "p", RowKey: "r", Properties: json.RawMessage(c.props)}
		if _, err := raw.Upsert(ctx, e, table.Replace); err != nil {
			t.Fatalf("%s: %v", c.props, err)
		}
		// Read raw and written again, the type must hold.
		again, err := raw.Get(ctx, "p", "r", nil)
		if err != nil {
			t.Fatal(err)
		}
		again.RowKey = "r2"
		if _, err := raw.Upsert(ctx, again, table.Replace); err != nil {
			t.Fatalf("%s again (%s): %v", c.props, again.Properties, err)
		}
		for _, rk := range []string{"r", "r2"} {
			got, err := dyn.Get(ctx, "p", rk, nil)
			if err != nil {
				t.Fatal(err)
			}
			if g := got.Properties["N"]; g != c.want {
				t.Errorf("%s (%s): got %T %v, want %T %v", c.props, rk, g, g, c.want, c.want)
			}
		}
	}
}

// TestRawEntityInvalid: Properties that are not an object of scalar
// properties are a *tablekit.ValidationError before any request.
func TestRawEntityInvalid(t *testing.T) {
	ctx := testenv.Ctx(t)
	raw, rec := newRecordedTable[table.RawEntity](t, nil)
	many := make([]string, 253)
	for i := range many {
		many[i] = `"P` + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + `_` + string(rune('a'+i/26)) + `":1`
	}
	for _, c := range []struct{ name, props string }{
		{"not JSON", `{"A":`},
		{"an array", `[1]`},
		{"nested", `{"A":{"B":1}}`},
		{"bad name", `{"1A":1}`},
		{"a key", `{"PartitionKey":"x"}`},
		{"Timestamp", `{"Timestamp":"2024-01-01T00:00:00Z"}`},
		{"annotation not a string", `{"A@odata.type":1,"A":1}`},
		{"too many", "{" + strings.Join(many, ",") + "}"},
		{"data after", `{"A":1} x`},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := rec.Count()
			_, err := raw.Upsert(ctx, table.RawEntity{PartitionKey: "p", RowKey: "r", Properties: json.RawMessage(c.props)}, table.Replace)
			var ve *tablekit.ValidationError
			if !errors.As(err, &ve) || !errors.Is(err, tablekit.ErrInvalid) {
				t.Errorf("got %v, want a *tablekit.ValidationError (tablekit.ErrInvalid)", err)
			}
			if n := rec.Count() - before; n != 0 {
				t.Errorf("sent %d requests, want none", n)
			}
		})
	}
}
