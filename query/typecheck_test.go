package query

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/table"
)

func TestFilterTypeCheck(t *testing.T) {
	svc := newService(t, "", nil)
	tbl := testenv.NewTable[item](t, svc)
	load(t, tbl, []item{makeItem(0, 2), makeItem(0, 3)})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cases := []struct {
		name     string
		f        Filter
		bad      bool
		wantText []string
	}{
		{"Int32 vs int64", Property("Big").Eq(Int32(2)), true, []string{"Big", "Edm.Int64", "Edm.Int32"}},
		{"Int64 vs int32", Property("N").Eq(Int64(2)), true, []string{"N", "Edm.Int32", "Edm.Int64"}},
		{"Int32 vs double", Property("F").Gt(Int32(1)), true, []string{"F", "Edm.Double", "Edm.Int32"}},
		{"String vs bool", Property("B").Eq(String("true")), true, []string{"B", "Edm.Boolean", "Edm.String"}},
		{"String vs datetime", Property("When").Lt(String("2024")), true, []string{"When", "Edm.DateTime"}},
		{"String vs guid", Property("ID").Eq(String("x")), true, []string{"ID", "Edm.Guid"}},
		{"String vs binary", Property("Bin").Eq(String("x")), true, []string{"Bin", "Edm.Binary"}},
		{"nested in Or and Not", Or(Property("S").Eq(String("a")), Not(Property("N").Eq(Double(1)))), true, []string{"N"}},
		{"same types", And(Property("Big").Eq(Int64(2)), Property("N").Ge(Int32(0)), Property("F").Gt(Double(0)), Property("When").Gt(DateTime(baseTime))), false, nil},
		{"unmapped property", Property("Other").Eq(Int32(1)), true, []string{"Other is not a property of query.item", "AnyTypes"}},
		{"unmapped properties", Or(Property("Nn").Eq(Int32(1)), Property("Other").Eq(Int32(1)), Property("Nn").Eq(Int32(2))), true, []string{"Nn, Other are not properties of query.item"}},
		{"raw", Raw("Big eq 2"), false, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Collect(New(tbl).Where(c.f).All(ctx))
			if !c.bad {
				if err != nil {
					t.Fatalf("got %v, want no error", err)
				}
				return
			}
			if !errors.Is(err, tablekit.ErrInvalid) {
				t.Fatalf("got %v, want tablekit.ErrInvalid", err)
			}
			for _, w := range c.wantText {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("message %q: want it to name %s", err, w)
				}
			}
		})
	}
	// AnyTypes sends it (Azurite, like the service, matches nothing here;
	// an Int64 literal against an Int32 property gets its 500).
	if _, err := Collect(New(tbl).Where(Property("Big").Eq(Int32(2))).AnyTypes().All(ctx)); err != nil {
		t.Errorf("AnyTypes: got %v, want the query to run", err)
	}
	// Table[Entity] has no static types: nothing to check.
	dyn, _ := table.As[table.Entity](tbl)
	if _, err := Collect(New(dyn).Where(Property("Big").Eq(Int32(2))).All(ctx)); err != nil {
		t.Errorf("Table[Entity]: got %v, want no error", err)
	}
}

// narrow is a projection of item.
type narrow struct {
	PartitionKey, RowKey string
	N                    int32
}

// TestPropertyNamesChecked: over a typed table, a filter or a Select that
// names a property T does not map is an error before any request; AnyTypes
// sends such a filter; over table.Entity and table.RawEntity any valid name
// goes.
func TestPropertyNamesChecked(t *testing.T) {
	rec := testenv.NewRecorder()
	tbl := testenv.NewTable[item](t, newService(t, "", &table.Options{Transport: rec}))
	load(t, tbl, []item{makeItem(0, 2)})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	before := rec.Count()
	if _, err := Collect(New(tbl).Where(And(Partition("p00"), Property("Nmae").Eq(String("x")))).All(ctx)); !errors.Is(err, tablekit.ErrInvalid) || !strings.Contains(err.Error(), "Nmae") {
		t.Errorf("misspelt filter: err = %v, want tablekit.ErrInvalid naming Nmae", err)
	}
	if _, err := Collect(New(tbl).Where(Partition("p00")).Select("N", "Sx").All(ctx)); !errors.Is(err, tablekit.ErrInvalid) || !strings.Contains(err.Error(), "Sx") {
		t.Errorf("misspelt Select: err = %v, want tablekit.ErrInvalid naming Sx", err)
	}
	narrowed, err := table.As[narrow](tbl)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Collect(New(narrowed).Where(Property("Nope").Eq(Int32(1))).All(ctx)); !errors.Is(err, tablekit.ErrInvalid) {
		t.Errorf("projected query, misspelt filter: err = %v, want tablekit.ErrInvalid", err)
	}
	if n := rec.Count() - before; n != 0 {
		t.Errorf("%d requests sent, want none", n)
	}
	got, err := Collect(New(tbl).Where(And(Partition("p00"), Property("Other").Eq(Int32(1)))).AnyTypes().All(ctx))
	if err != nil || len(got) != 0 || rec.Count() == before {
		t.Errorf("AnyTypes: %d entities, %v, %d requests; want the query sent, matching none", len(got), err, rec.Count()-before)
	}
	dyn, _ := table.As[table.Entity](tbl)
	raw, _ := table.As[table.RawEntity](tbl)
	if _, err := Collect(New(dyn).Where(Property("Other").Eq(Int32(1))).Select("Other").All(ctx)); err != nil {
		t.Errorf("Table[Entity]: %v", err)
	}
	if _, err := Collect(New(raw).Where(Property("Other").Eq(Int32(1))).Select("Other").All(ctx)); err != nil {
		t.Errorf("Table[RawEntity]: %v", err)
	}
}
