package table_test

import (
	"context"
	"errors"
	"testing"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/table"
)

type prefixRow struct {
	PartitionKey, RowKey string
	N                    int32
	S                    string
	table.Meta
}

// TestErrorsSayEachPrefixOnce walks the errors a caller meets before any
// request (keys, entities, decoding, options) and fails on a message that
// repeats a package prefix, as "table: invalid key: table: invalid
// entity: ..." did; each must still match its sentinels.
func TestErrorsSayEachPrefixOnce(t *testing.T) {
	svc, err := table.NewService("UseDevelopmentStorage=true", nil)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := table.New[prefixRow](svc, "prefixes")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := table.As[table.RawEntity](tbl)
	ctx := context.Background()
	get := func(pk, rk string, o *table.GetOptions) error { _, err := tbl.Get(ctx, pk, rk, o); return err }
	unmarshal := func(body string) error { _, err := tbl.Unmarshal([]byte(body)); return err }
	_, newTypeErr := table.New[struct{ A int }](svc, "prefixes")
	_, newNameErr := table.New[prefixRow](svc, "1bad")
	_, ticksErr := table.TimeFromReverseTicks("abc")
	_, addErr := tbl.Add(ctx, prefixRow{PartitionKey: "p", RowKey: "r", S: "\xff"})
	_, rawErr := raw.Marshal(table.RawEntity{PartitionKey: "p", RowKey: "r", Properties: []byte(`{"X@odata.type":"Edm.Int32","X":"5"}`)})
	_, updateErr := tbl.Update(ctx, prefixRow{PartitionKey: "p", RowKey: "r"}, table.Merge, "")
	for _, c := range []struct {
		name string
		err  error
		is   []error
	}{
		{"Get, empty key", get("", "r", nil), []error{tablekit.ErrInvalid}},
		{"Get, bad key", get("a/b", "r", nil), []error{tablekit.ErrInvalid}},
		{"Delete, bad key", tbl.Delete(ctx, "p", "a#b", table.AnyETag), []error{tablekit.ErrInvalid}},
		{"Get, Select of no property", get("p", "r", &table.GetOptions{Select: []string{"Nope"}}), []error{tablekit.ErrInvalid}},
		{"Add, invalid entity", addErr, []error{tablekit.ErrInvalid}},
		{"RawEntity misfit", rawErr, []error{tablekit.ErrInvalid}},
		{"Update without ETag", updateErr, []error{tablekit.ErrInvalid}},
		{"Unmarshal, misfit", unmarshal(`{"PartitionKey":"p","RowKey":"r","N":"x"}`), []error{tablekit.ErrDecode}},
		{"Unmarshal, annotation misfit", unmarshal(`{"PartitionKey":"p","RowKey":"r","N@odata.type":"Edm.Int32","N":2147483648}`), []error{tablekit.ErrDecode}},
		{"Unmarshal, not JSON", unmarshal(`{"PartitionKey":`), []error{tablekit.ErrDecode}},
		{"New, bad type", newTypeErr, []error{tablekit.ErrInvalid}},
		{"New, bad name", newNameErr, []error{tablekit.ErrInvalid}},
		{"reverse ticks", ticksErr, []error{tablekit.ErrInvalid}},
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
