package query

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/table"
)

// Strings that would change a filter's meaning if they were concatenated
// into it, plus unicode that tests exactness (é precomposed and decomposed
// are different strings). Keys cannot hold control characters or / \ # ?.
var hostileKeys = []string{
	"O'Brien", "'", "''", "' or 1 eq 1 or '", "x') or (1 eq 1", "' or PartitionKey ne '",
	`"dq"`, "u0027", "日本語", "😀", "a b", " lead", "trail ", "%20", "%27", "+&=;", "é", "e\u0301",
	"\uffff", "\U0010ffff", "not", "eq", "true", "*", "$filter=x", "(", ")", "<>", "`~!@$^|{}[]",
}

var hostileValues = append(slices.Clone(hostileKeys),
	"", "\t", "\n", "line1\r\nline2", "a\x01b", "\x7f", "\u0085", "\u2028", "/", `\`, "#", "?", "a/b\\c#d?e",
	"null", "' or 1 eq 1", "')", `\u0027`, "nul\x00byte", strings.Repeat("'", 100))

// TestHostileStrings proves that every string above round-trips through a
// filter as an exact match of itself and of nothing else, on keys (point
// get, query within a partition, table scan) and on property values.
func TestHostileStrings(t *testing.T) {
	svc := newService(t, "", nil)
	tbl := testenv.NewTable[item](t, svc)
	var ents []item
	for i, k := range hostileKeys {
		ents = append(ents, item{PartitionKey: "k", RowKey: k, S: fmt.Sprint("key", i), B: true})
	}
	for i, v := range hostileValues {
		ents = append(ents, item{PartitionKey: "v", RowKey: fmt.Sprintf("%03d", i), S: v})
	}
	// One upsert each: Azurite's $batch parser takes the RowKeys ' and ''
	// (written doubled in the operation URLs) for duplicates.
	ctx := context.Background()
	for _, e := range ents {
		if _, err := tbl.Upsert(ctx, e, table.Replace); err != nil {
			t.Fatalf("upsert %q: %v", e.RowKey, err)
		}
	}
	run := func(t *testing.T, f Filter) []string {
		t.Helper()
		got, err := Collect(New(tbl).Where(f).All(ctx))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		var out []string
		for _, e := range got {
			if e.PartitionKey == "k" {
				out = append(out, e.RowKey)
			} else {
				out = append(out, e.S)
			}
		}
		return out
	}
	for i, k := range hostileKeys {
		t.Run(fmt.Sprintf("key %d %q", i, k), func(t *testing.T) {
			want := []string{k}
			for _, f := range []Filter{
				Point("k", k), // a GET by key
				And(Point("k", k), Property("B").Eq(Bool(true))), // a query
				RowKey.Eq(String(k)),                             // a table scan
			} {
				if got := run(t, f); !slices.Equal(got, want) {
					t.Errorf("%s: got %q, want %q", f, got, want)
				}
			}
			if got := run(t, Point(k, k)); len(got) != 0 {
				t.Errorf("PartitionKey %q: got %q, want nothing", k, got)
			}
		})
	}
	for i, v := range hostileValues {
		t.Run(fmt.Sprintf("value %d %q", i, v), func(t *testing.T) {
			got := run(t, And(Partition("v"), Property("S").Eq(String(v))))
			if !slices.Equal(got, []string{v}) {
				t.Errorf("S eq %q: got %q, want exactly it", v, got)
			}
			got = run(t, And(Partition("v"), Property("S").Ne(String(v))))
			if len(got) != len(hostileValues)-1 || slices.Contains(got, v) {
				t.Errorf("S ne %q: got %d values, want all %d others", v, len(got), len(hostileValues)-1)
			}
		})
	}
	t.Run("keys with control characters", func(t *testing.T) {
		// No key can hold them, so a filter on one is valid and matches
		// nothing; a point read does not even send a request.
		for _, k := range []string{"a\x01b", "\t", "x\ny", "a/b", "#", "?"} {
			for _, f := range []Filter{Point("k", k), RowKey.Eq(String(k)), And(Partition("k"), RowKey.Ge(String(k)), RowKey.Le(String(k)))} {
				if got := run(t, f); len(got) != 0 {
					t.Errorf("%s: got %q, want nothing", f, got)
				}
			}
		}
	})
	t.Run("prefix", func(t *testing.T) {
		for _, p := range []string{"'", "' or", "e", "\uffff", "a", "%2"} {
			var want []string
			for _, v := range hostileValues {
				if strings.HasPrefix(v, p) {
					want = append(want, v)
				}
			}
			got := run(t, And(Partition("v"), Property("S").HasPrefix(p)))
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("S has prefix %q: got %q, want %q", p, got, want)
			}
		}
	})
}

// TestLiteralTypes proves each typed literal matches exactly the intended
// entity on Azurite. (Azurite is lenient with untyped literals, so the exact
// text of each literal is asserted by TestLiterals.)
func TestLiteralTypes(t *testing.T) {
	type lit struct {
		PartitionKey string
		RowKey       string
		N            int32
		Big          int64
		F            float64
		B            bool
		When         time.Time
		ID           table.GUID
		Bin          []byte
		S            string
	}
	svc := newService(t, "", nil)
	tbl := testenv.NewTable[lit](t, svc)
	gid := func(b byte) table.GUID { return table.GUID{15: b, 0: 0xab} }
	at := func(i int) time.Time {
		return baseTime.Add(time.Duration(i)*7*time.Millisecond + 1234500*time.Nanosecond)
	}
	ents := []lit{
		{N: math.MinInt32, Big: math.MinInt64, F: -1.5, B: true, Bin: []byte{0}, S: "a"},
		{N: -1, Big: -1, F: 0, B: false, Bin: []byte{1, 2}, S: "b"},
		{N: 0, Big: 0, F: 2, B: true, Bin: []byte{0xff}, S: "c"},
		{N: 7, Big: 1<<53 + 1, F: 1e21, B: false, Bin: []byte{0xde, 0xad}, S: "d"},
		{N: math.MaxInt32, Big: math.MaxInt64, F: 0.1, B: true, Bin: []byte{0xbe, 0xef, 0}, S: "e"},
	}
	for i := range ents {
		ents[i].PartitionKey, ents[i].RowKey = "lit", fmt.Sprint(i)
		ents[i].When, ents[i].ID = at(i), gid(byte(i))
	}
	load(t, tbl, ents)
	ctx := context.Background()
	before := time.Now().Add(-time.Hour)
	rows := func(f Filter) ([]int, error) {
		got, err := Collect(New(tbl).Where(And(Partition("lit"), f)).All(ctx))
		var out []int
		for _, e := range got {
			var i int
			fmt.Sscan(e.RowKey, &i)
			out = append(out, i)
		}
		return out, err
	}
	type tc struct {
		f    Filter
		want []int
	}
	var tests []tc
	for i, e := range ents {
		tests = append(tests,
			tc{Property("N").Eq(Int32(e.N)), []int{i}},
			tc{Property("Big").Eq(Int64(e.Big)), []int{i}},
			tc{Property("F").Eq(Double(e.F)), []int{i}},
			tc{Property("When").Eq(DateTime(e.When)), []int{i}},
			tc{Property("ID").Eq(GUID(e.ID)), []int{i}},
			tc{Property("Bin").Eq(Binary(e.Bin)), []int{i}},
			tc{Property("S").Eq(String(e.S)), []int{i}},
		)
	}
	tests = append(tests,
		tc{Property("B").Eq(Bool(true)), []int{0, 2, 4}},
		tc{Property("B").Eq(Bool(false)), []int{1, 3}},
		tc{Property("N").Gt(Int32(0)), []int{3, 4}},
		tc{Property("N").Le(Int32(-1)), []int{0, 1}},
		tc{Property("Big").Lt(Int64(0)), []int{0, 1}},
		tc{Property("Big").Ge(Int64(1 << 53)), []int{3, 4}},
		tc{Property("Big").Eq(Int64(1 << 53)), nil}, // 2^53 and 2^53+1 are one float64, but not one Int64
		tc{Property("F").Ge(Double(2)), []int{2, 3}},
		tc{Property("F").Lt(Double(0)), []int{0}},
		tc{Property("When").Le(DateTime(at(2))), []int{0, 1, 2}},
		tc{Property("When").Gt(DateTime(at(3))), []int{4}},
		tc{Timestamp.Gt(DateTime(before)), []int{0, 1, 2, 3, 4}},
		tc{Timestamp.Lt(DateTime(before)), nil},
		tc{Not(Property("B").Eq(Bool(true))), []int{1, 3}},
		tc{Or(Property("N").Eq(Int32(7)), Property("S").Eq(String("a"))), []int{0, 3}},
	)
	for _, tt := range tests {
		t.Run(tt.f.String(), func(t *testing.T) {
			got, err := rows(tt.f)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got rows %v, want %v", got, tt.want)
			}
		})
	}
}
