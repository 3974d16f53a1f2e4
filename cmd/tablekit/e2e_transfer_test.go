package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/query"
	"github.com/tablekit/tablekit/table"
)

// edgeProps holds every EDM type at the edges the library accepts, NaN and
// the infinities among them.
func edgeProps() map[string]any {
	g, _ := table.ParseGUID("01234567-89ab-cdef-0123-456789abcdef")
	return map[string]any{
		"Str":      "O'Brien, \"q\" \\ é\U0001F600\nnext line",
		"StrEmpty": "",
		"True":     true,
		"False":    false,
		"I32Min":   int32(math.MinInt32),
		"I32Max":   int32(math.MaxInt32),
		"I64Min":   int64(math.MinInt64),
		"I64Max":   int64(math.MaxInt64),
		"I64One":   int64(1),
		"DOne":     1.0,
		"DZero":    0.0,
		"DNegZero": math.Copysign(0, -1),
		"DTiny":    5e-324,
		"DMax":     math.MaxFloat64,
		"DNeg":     -2.5,
		"DNaN":     math.NaN(),
		"DInf":     math.Inf(1),
		"DNegInf":  math.Inf(-1),
		"When":     time.Date(2024, 2, 29, 23, 59, 59, 123456700, time.UTC),
		"WhenMin":  time.Date(1601, 1, 1, 0, 0, 0, 0, time.UTC),
		"WhenMax":  time.Date(9999, 12, 31, 23, 59, 59, 999999900, time.UTC),
		"ID":       g,
		"IDZero":   table.GUID{},
		"Bin":      []byte{0, 1, 2, 0xff},
		"BinEmpty": []byte{},
		"Bin64K":   make([]byte, 64<<10),
	}
}

// dropTable deletes the table name of the account conn reaches, for a
// test's cleanup.
func dropTable(t *testing.T, conn, name string) {
	t.Helper()
	svc, err := table.NewService(conn, nil)
	if err != nil {
		t.Fatal(err)
	}
	_ = svc.DeleteTable(context.Background(), name)
}

func dynTableOf(t *testing.T, conn, name string) *dynTable {
	t.Helper()
	svc, err := table.NewService(conn, nil)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := table.New[table.Entity](svc, name)
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// newDynTable creates an empty table that is dropped after the test.
func newDynTable(t *testing.T, conn string) (*dynTable, string) {
	t.Helper()
	name := testenv.TableName(t)
	svc, err := table.NewService(conn, nil)
	if err != nil {
		t.Fatal(err)
	}
	tbl := dynTableOf(t, conn, name)
	if err := svc.CreateTable(context.Background(), name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.DeleteTable(context.Background(), name) })
	return tbl, name
}

// readTable reads a table into a map by "pk/rk".
func readTable(t *testing.T, tbl *dynTable) map[string]table.Entity {
	t.Helper()
	got := map[string]table.Entity{}
	for e, err := range query.New(tbl).All(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		got[e.PartitionKey+"/"+e.RowKey] = e
	}
	return got
}

// checkSame compares two tables' entities, property types and values.
func checkSame(t *testing.T, got, want map[string]table.Entity) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("got %d entities, want %d", len(got), len(want))
	}
	for k, w := range want {
		g, ok := got[k]
		if !ok {
			t.Errorf("%s missing", k)
			continue
		}
		for name, wv := range w.Properties {
			gv, ok := g.Properties[name]
			if !ok || !sameProps(map[string]any{name: gv}, map[string]any{name: wv}) {
				t.Errorf("%s.%s = %#v (%T), want %#v (%T)", k, name, short(gv), gv, short(wv), wv)
			}
		}
		if len(g.Properties) < len(w.Properties) {
			t.Errorf("%s has %d properties, want %d", k, len(g.Properties), len(w.Properties))
		}
	}
}

func short(v any) any {
	if b, ok := v.([]byte); ok && len(b) > 8 {
		return len(b)
	}
	return v
}

func TestE2ERoundTrip(t *testing.T) {
	az := testenv.Azurite(t)
	cs := az.ConnectionString
	src, name := newDynTable(t, cs)
	ctx := context.Background()
	edge := table.NewEntity("edge", "all types")
	edge.Properties = edgeProps()
	sparse := table.NewEntity("p,\"x\"", "only one")
	sparse.Properties["I32Max"] = int32(7) // same name, another value; other columns absent
	uni := table.NewEntity("ünï", "κλειδί 😀")
	uni.Properties["Other"] = "x"
	for _, e := range []table.Entity{edge, sparse, uni} {
		if _, err := src.Upsert(ctx, e, table.Replace); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]table.Entity{}
	for _, e := range []table.Entity{edge, sparse, uni} {
		want[e.PartitionKey+"/"+e.RowKey] = e
	}
	// Whole Doubles must stay Doubles; -0.0 comes back as 0.0 from the
	// emulator itself (JavaScript writes -0 as 0), so what the source table
	// reads is what the copy must hold.
	got0 := readTable(t, src)["edge/all types"].Properties
	for _, n := range []string{"DOne", "DZero", "DNegZero"} {
		if _, ok := got0[n].(float64); !ok {
			t.Errorf("the source reads %s back as %T, want float64", n, got0[n])
		}
		edge.Properties[n] = got0[n]
	}
	for _, format := range []string{"jsonl", "csv"} {
		t.Run(format, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "out."+format)
			wantCode(t, tk(t, cs, "export", name, "-o", file, "--format", format), 0, "export")
			if format == "jsonl" {
				b, _ := os.ReadFile(file)
				if !strings.Contains(string(b), `"Timestamp@odata.type":"Edm.DateTime"`) || !strings.Contains(string(b), `"DNeg@odata.type":"Edm.Double"`) {
					t.Errorf("export lacks annotations:\n%.300s", b)
				}
			}
			dst, dname := newDynTable(t, cs)
			wantCode(t, tk(t, cs, "import", dname, file, "--format", format), 0, "import")
			checkSame(t, readTable(t, dst), want)
		})
	}
}

func TestE2ECopy(t *testing.T) {
	az := testenv.Azurite(t)
	cs := az.ConnectionString
	src, name := newDynTable(t, cs)
	e := table.NewEntity("edge", "all types")
	e.Properties = edgeProps()
	if _, err := src.Upsert(context.Background(), e, table.Replace); err != nil {
		t.Fatal(err)
	}
	// The copy moves the entity's JSON as the source sends it: whole
	// Doubles (DOne, DZero, unannotated there) must stay Doubles. What the
	// source reads is what the copy must hold (see TestE2ERoundTrip for
	// -0.0).
	want := readTable(t, src)
	if d, ok := want["edge/all types"].Properties["DOne"].(float64); !ok || d != 1 {
		t.Fatalf("the source reads DOne as %T %v, want float64 1", want["edge/all types"].Properties["DOne"], want["edge/all types"].Properties["DOne"])
	}
	dname := testenv.TableName(t)
	dst := dynTableOf(t, cs, dname)
	t.Cleanup(func() { dropTable(t, cs, dname) })
	wantCode(t, tk(t, cs, "copy", name, dname), 0, "copy")
	checkSame(t, readTable(t, dst), want)
	wantCode(t, tk(t, cs, "copy", name, name), exitUsage, "copy onto itself")
	wantCode(t, tk(t, cs, "copy", name, strings.ToUpper(name)), exitUsage, "copy onto itself, named in capitals")
}

// TestE2EDoubleSpellings: NaN and the infinities in every spelling writers
// use are imported as Edm.Double, from JSON Lines and from CSV.
func TestE2EDoubleSpellings(t *testing.T) {
	az := testenv.Azurite(t)
	cs := az.ConnectionString
	spellings := []struct {
		text string
		want float64
	}{
		{"NaN", math.NaN()}, {"Infinity", math.Inf(1)}, {"-Infinity", math.Inf(-1)}, {"INF", math.Inf(1)}, {"-INF", math.Inf(-1)},
	}
	var jsonl, csv strings.Builder
	csv.WriteString("PartitionKey,RowKey,D,D@type\n")
	want := map[string]table.Entity{}
	for i, sp := range spellings {
		rk := strconv.Itoa(i)
		fmt.Fprintf(&jsonl, `{"PartitionKey":"p","RowKey":%q,"D@odata.type":"Edm.Double","D":%q}`+"\n", rk, sp.text)
		fmt.Fprintf(&csv, "p,%s,%s,Double\n", rk, sp.text)
		want["p/"+rk] = table.Entity{Properties: map[string]any{"D": sp.want}}
	}
	for _, f := range []struct{ name, body string }{{"in.jsonl", jsonl.String()}, {"in.csv", csv.String()}} {
		t.Run(f.name, func(t *testing.T) {
			dst, dname := newDynTable(t, cs)
			in := filepath.Join(t.TempDir(), f.name)
			if err := os.WriteFile(in, []byte(f.body), 0o644); err != nil {
				t.Fatal(err)
			}
			wantCode(t, tk(t, cs, "import", dname, in), 0, "import")
			checkSame(t, readTable(t, dst), want)
		})
	}
}

// TestE2EImportCSVShapes imports the shapes Storage Explorer and
// spreadsheets produce.
func TestE2EImportCSVShapes(t *testing.T) {
	az := testenv.Azurite(t)
	cs := az.ConnectionString
	tests := []struct {
		name, csv string
		extra     []string
		want      map[string]any // properties of p/r1
	}{
		{"no type columns", "PartitionKey,RowKey,A,B\np,r1,42,x\n", nil,
			map[string]any{"A": "42", "B": "x"}},
		{"types on the first row only", "PartitionKey,RowKey,Timestamp,A,A@type\np,r1,2024-01-01T00:00:00Z,42,Int64\np,r2,,7,\n", nil,
			map[string]any{"A": int64(42)}},
		{"semicolons", "PartitionKey;RowKey;A;A@type\np;r1;1.5;Double\n", []string{"--delimiter", ";"},
			map[string]any{"A": 1.5}},
		{"quoted fields", "PartitionKey,RowKey,A,A@type\np,r1,\"a,b \"\"q\"\"\nline 2\",String\n", nil,
			map[string]any{"A": "a,b \"q\"\nline 2"}},
		{"Edm. type names", "PartitionKey,RowKey,A,A@type,B,B@type\np,r1,true,Edm.Boolean,AAE=,edm.binary\n", nil,
			map[string]any{"A": true, "B": []byte{0, 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dst, dname := newDynTable(t, cs)
			in := filepath.Join(t.TempDir(), "in.csv")
			if err := os.WriteFile(in, []byte(tt.csv), 0o644); err != nil {
				t.Fatal(err)
			}
			wantCode(t, tk(t, cs, append([]string{"import", dname, in, "--format", "csv"}, tt.extra...)...), 0, "import")
			got := readTable(t, dst)
			checkSame(t, map[string]table.Entity{"p/r1": got["p/r1"]}, map[string]table.Entity{"p/r1": {Properties: tt.want}})
		})
	}
}
