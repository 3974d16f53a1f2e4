package main

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tablekit/tablekit/table"
)

// ent is an entity of the printers' tests: keys, a fixed Timestamp and
// string properties given as name, value pairs.
func ent(rk string, props ...string) table.Entity {
	e := table.NewEntity("p", rk)
	e.Timestamp = time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)
	for i := 0; i+1 < len(props); i += 2 {
		e.Properties[props[i]] = props[i+1]
	}
	return e
}

// TestTableOutBlocks: each set of rows is printed as it comes; a new
// header follows a blank line only when a column is added or widened.
func TestTableOutBlocks(t *testing.T) {
	const ts = "2024-05-01T10:00:00.0000000Z"
	tests := []struct {
		what   string
		sel    []string // --select; nil: columns from the rows
		chunks [][]table.Entity
		want   string
	}{
		{"no rows: the header", nil, nil,
			"PartitionKey  RowKey  Timestamp\n"},
		{"one set", nil, [][]table.Entity{{ent("1", "B", "x", "A", "long"), ent("22", "A", "y")}},
			"PartitionKey  RowKey  Timestamp                     A     B\n" +
				"p             1       " + ts + "  long  x\n" +
				"p             22      " + ts + "  y\n"},
		{"a narrower set: no new header", nil, [][]table.Entity{{ent("1", "A", "long")}, {ent("2", "A", "s")}},
			"PartitionKey  RowKey  Timestamp                     A\n" +
				"p             1       " + ts + "  long\n" +
				"p             2       " + ts + "  s\n"},
		{"empty cells at the end are left out", nil, [][]table.Entity{{ent("1", "A", "s"), ent("2", "B", "b")}},
			"PartitionKey  RowKey  Timestamp                     A  B\n" +
				"p             1       " + ts + "  s\n" +
				"p             2       " + ts + "     b\n"},
		{"a column more: a new header, the column at the right", nil, [][]table.Entity{{ent("1", "B", "b")}, {ent("2", "A", "aaa", "B", "bb")}},
			"PartitionKey  RowKey  Timestamp                     B\n" +
				"p             1       " + ts + "  b\n" +
				"\n" +
				"PartitionKey  RowKey  Timestamp                     B   A\n" +
				"p             2       " + ts + "  bb  aaa\n"},
		{"a wider value in a later set", nil, [][]table.Entity{{ent("1", "A", "a")}, {ent("2", "A", "aaaaaa")}},
			"PartitionKey  RowKey  Timestamp                     A\n" +
				"p             1       " + ts + "  a\n" +
				"\n" +
				"PartitionKey  RowKey  Timestamp                     A\n" +
				"p             2       " + ts + "  aaaaaa\n"},
		{"--select: those columns only", []string{"Z", "A"}, [][]table.Entity{{ent("1", "A", "a", "Z", "z")}},
			"PartitionKey  RowKey  Timestamp                     Z  A\n" +
				"p             1       " + ts + "  z  a\n"},
		{"escaped and cut", nil, [][]table.Entity{{ent("1", "A", "a\tb"+strings.Repeat("x", 70))}},
			"PartitionKey  RowKey  Timestamp                     A\n" +
				"p             1       " + ts + "  a\\tb" + strings.Repeat("x", 55) + "…\n"},
	}
	for _, tt := range tests {
		var b strings.Builder
		p := &tableOut{o: &b, cols: tt.sel, fixed: tt.sel != nil}
		for _, c := range tt.chunks {
			if err := p.rows(c); err != nil {
				t.Fatalf("%s: %v", tt.what, err)
			}
		}
		if err := p.close(); err != nil {
			t.Fatalf("%s: %v", tt.what, err)
		}
		if got := b.String(); got != tt.want {
			t.Errorf("%s: got\n%s\nwant\n%s", tt.what, got, tt.want)
		}
	}
}

// TestCSVOutColumns: the first set of rows decides csv's columns; a
// property first seen later is an error naming it, after the rows before
// it were printed whole.
func TestCSVOutColumns(t *testing.T) {
	var b strings.Builder
	c := &csvOut{o: &b}
	if err := c.rows([]table.Entity{ent("1", "A", "a")}); err != nil {
		t.Fatal(err)
	}
	err := c.rows([]table.Entity{ent("2", "A", "b"), ent("3", "B", "c")})
	if err == nil || !strings.Contains(err.Error(), "property B") {
		t.Fatalf("a property first seen in the second set: %v, want an error naming B", err)
	}
	want := "PartitionKey,RowKey,Timestamp,A,A@type\n" +
		"p,1,2024-05-01T10:00:00.0000000Z,a,String\n" +
		"p,2,2024-05-01T10:00:00.0000000Z,b,String\n"
	if got := b.String(); got != want {
		t.Errorf("printed before the error:\n%s\nwant\n%s", got, want)
	}
}

func TestSelectNames(t *testing.T) {
	tests := []struct {
		sel     string
		want    []string
		wantErr bool
	}{
		{"A,B", []string{"A", "B"}, false},
		{" A , A,,B ", []string{"A", "B"}, false},
		{"PartitionKey,RowKey,Timestamp,A", []string{"A"}, false},
		{"A,b-c", nil, true},
		{"1A", nil, true},
	}
	for _, tt := range tests {
		got, err := selectNames(tt.sel)
		if (err != nil) != tt.wantErr || strings.Join(got, ",") != strings.Join(tt.want, ",") {
			t.Errorf("selectNames(%q) = %q, %v; want %q (error: %v)", tt.sel, got, err, tt.want, tt.wantErr)
		}
		if err != nil && !errors.Is(err, errUsage) {
			t.Errorf("selectNames(%q): %v, want a usage error", tt.sel, err)
		}
	}
}
