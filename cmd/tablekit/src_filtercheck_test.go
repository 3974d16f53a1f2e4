package main

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tablekit/tablekit/query"
	"github.com/tablekit/tablekit/table"
)

// TestLiteralTypesOfQuery holds the types the check reads from literals
// to the forms package query writes for each type.
func TestLiteralTypesOfQuery(t *testing.T) {
	g, _ := table.ParseGUID("0f8fad5b-d9cb-469f-a165-70867728950e")
	tests := []struct {
		v    query.Value
		want string
	}{
		{query.String("O'Brien"), edmString},
		{query.String(""), edmString},
		{query.Bool(true), edmBoolean},
		{query.Int32(-42), edmInt32},
		{query.Int32(math.MaxInt32), edmInt32},
		{query.Int64(42), edmInt64},
		{query.Int64(math.MinInt64), edmInt64},
		{query.Double(1), edmDouble},
		{query.Double(-2.5e-300), edmDouble},
		{query.DateTime(time.Date(2024, 1, 2, 3, 4, 5, 600, time.UTC)), edmDateTime},
		{query.GUID(g), edmGUID},
		{query.Binary([]byte{0, 0xff}), edmBinary},
	}
	for _, tt := range tests {
		f, err := query.Property("X").Eq(tt.v).Build()
		if err != nil {
			t.Fatal(err)
		}
		got := comparisons(f)
		if want := []comparison{{"X", tt.v.String(), tt.want}}; !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %+v, want %+v", f, got, want)
		}
	}
}

func TestComparisons(t *testing.T) {
	tests := []struct {
		filter string
		want   []comparison
	}{
		{"N eq 5", []comparison{{"N", "5", edmInt32}}},
		{"(N64 ge 5L) and not (D lt 2.5)", []comparison{{"N64", "5L", edmInt64}, {"D", "2.5", edmDouble}}},
		{"5 lt N or 'x' eq S", []comparison{{"N", "5", edmInt32}, {"S", "'x'", edmString}}},
		{"S eq 'it''s N eq 5'", []comparison{{"S", "'it''s N eq 5'", edmString}}},
		{"Timestamp lt datetime'2024-01-01T00:00:00Z' and Ok eq true", []comparison{{"Timestamp", "datetime'2024-01-01T00:00:00Z'", edmDateTime}, {"Ok", "true", edmBoolean}}},
		{"D eq NaN or D eq -INF or D gt 1e3 or E eq -7", []comparison{{"D", "NaN", edmDouble}, {"D", "-INF", edmDouble}, {"D", "1e3", edmDouble}, {"E", "-7", edmInt32}}},
		{"Big eq 3000000000", []comparison{{"Big", "3000000000", ""}}},
		{"Ünï eq 1.5d", []comparison{{"Ünï", "1.5d", edmDouble}}},
		{"A eq B", nil},
		{"", nil},
		{"N eq 'unclosed", []comparison{{"N", "'unclosed", edmString}}},
	}
	for _, tt := range tests {
		if got := comparisons(tt.filter); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%q: %+v, want %+v", tt.filter, got, tt.want)
		}
	}
}

func TestConvertLiteral(t *testing.T) {
	tests := []struct {
		c    comparison
		to   string
		want string // "": no conversion
	}{
		{comparison{"N", "5", edmInt32}, edmInt64, "5L"},
		{comparison{"N", "5", edmInt32}, edmDouble, "5.0"},
		{comparison{"N", "5L", edmInt64}, edmInt32, "5"},
		{comparison{"N", "2.5", edmDouble}, edmInt64, ""},
		{comparison{"N", "5", edmInt32}, edmString, "'5'"},
		{comparison{"N", "'7'", edmString}, edmInt64, "7L"},
		{comparison{"T", "'2024-01-01'", edmString}, edmDateTime, "datetime'2024-01-01T00:00:00.0000000Z'"},
		{comparison{"G", "'0F8FAD5B-D9CB-469F-A165-70867728950E'", edmString}, edmGUID, "guid'0f8fad5b-d9cb-469f-a165-70867728950e'"},
		{comparison{"S", "''", edmString}, edmInt32, ""},
		{comparison{"B", "true", edmBoolean}, edmInt32, ""},
	}
	for _, tt := range tests {
		got, ok := convertLiteral(tt.c, tt.to)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("%s as %s: %q, %v; want %q", tt.c.literal, tt.to, got, ok, tt.want)
		}
	}
}

// FuzzComparisons: no filter text makes the check panic.
func FuzzComparisons(f *testing.F) {
	for _, s := range []string{"N eq 5", "S eq 'x''y'", "-", "-INF", "X'ab' eq B", "1e", "'", "5 lt N", "N eq -", "é eq 1L"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, c := range comparisons(s) {
			for _, typ := range edmTypes {
				convertLiteral(c, typ)
			}
		}
	})
}

// sampleOf is a shape of entities with the given properties, each entity
// a map.
func sampleOf(ents ...map[string]any) *shape {
	sh := newShape(true, nil)
	for i, props := range ents {
		sh.add("p", fmt.Sprint(i), props, 10)
	}
	return sh
}

func TestFilterFindings(t *testing.T) {
	orders := sampleOf(
		map[string]any{"Total": 5.5, "Quantity": int64(3), "Kind": "a", "Mixed": int32(1)},
		map[string]any{"Total": 6.5, "Quantity": int64(4), "Mixed": "one"},
	)
	tests := []struct {
		name   string
		filter string
		sample *shape
		want   []string // in the message; nil: accepted
	}{
		{"right names and types", "Total gt 5.0 and Quantity eq 3L and Kind eq 'a'", orders, nil},
		{"a typo", "Totl gt 5.0", orders, []string{"Totl: no entity has it (of the 2 read); did you mean Total?", "--check-filter=false"}},
		{"case", "total gt 5.0", orders, []string{"total: no entity has it", "did you mean Total?"}},
		{"nothing near", "Colour eq 'red'", orders, []string{"Colour: no entity has it (of the 2 read)"}},
		{"a name compared with a name", "Total gt Totl", orders, []string{"Totl: no entity has it"}},
		{"Int32 literal, Int64 property", "PartitionKey eq 'c' and Quantity eq 3", orders, []string{"Quantity is Edm.Int64 in the entities read, and 3 is an Edm.Int32 literal (write 3L)", typeRule}},
		{"Int32 literal, Double property", "Total gt 5", orders, []string{"Edm.Double", "(write 5.0)", typeRule}},
		{"a property of two types takes either", "Mixed eq 1 or Mixed eq 'one'", orders, nil},
		{"a property of two types, a third", "Mixed eq 1L", orders, []string{"Mixed is Edm.String or Edm.Int32 in the entities read"}},
		{"both findings", "Totl gt 5.0 and Quantity lt 2", orders, []string{"Totl: no entity has it", "write 2L"}},
		{"system properties need no sample", "Timestamp lt '2030-01-01' and RowKey gt 'a'", nil, []string{"Timestamp is Edm.DateTime always", "datetime'2030-01-01T00:00:00.0000000Z'"}},
		{"no sample, names unknown", "Totl gt 5", nil, nil},
		{"an empty scope knows no names", "Totl gt 5", sampleOf(), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := filterFindings(tt.filter, tt.sample)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("got %v, want no error", err)
				}
				return
			}
			if !errors.Is(err, errUsage) {
				t.Fatalf("got %v, want a usage error", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("got %q, want it to say %q", err, w)
				}
			}
		})
	}
}

func TestNearestName(t *testing.T) {
	sh := sampleOf(map[string]any{"Total": 1.0, "Quantity": int64(1), "Qty": int32(1), "CustomerName": "x"})
	tests := []struct{ name, want string }{
		{"Totl", "Total"},
		{"TOTAL", "Total"},
		{"Quantiy", "Quantity"},
		{"Qtz", "Qty"},
		{"Qzz", ""}, // two edits from Qty: too far for a short name
		{"CustomerNmae", "CustomerName"},
		{"Partitionkey", "PartitionKey"},
		{"Timestamps", "Timestamp"},
		{"Colour", ""},
	}
	for _, tt := range tests {
		if got := nearestName(tt.name, sh); got != tt.want {
			t.Errorf("nearestName(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestFilterNames(t *testing.T) {
	tests := []struct {
		filter string
		want   []string
	}{
		{"Total gt 5.0 and (Kind eq 'a' or not Ok)", []string{"Total", "Kind", "Ok"}},
		{"A eq B and A lt 3", []string{"A", "B"}},
		{"S eq 'Totl eq 5' and T eq datetime'2024-01-01T00:00:00Z' and G eq guid'0f8fad5b-d9cb-469f-a165-70867728950e' and B eq X'00'", []string{"S", "T", "G", "B"}},
		{"D eq NaN or D eq -INF or Ok eq true", []string{"D", "Ok"}},
		{"", nil},
	}
	for _, tt := range tests {
		if got := filterNames(tt.filter); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("filterNames(%q) = %q, want %q", tt.filter, got, tt.want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"abc", "", 3}, {"totl", "total", 1}, {"kitten", "sitting", 3}, {"ünï", "uni", 2},
	}
	for _, tt := range tests {
		if got := editDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestKeyScope(t *testing.T) {
	tests := []struct{ filter, want string }{
		{"PartitionKey eq 'cust-0001' and Quantity eq 3", "PartitionKey eq 'cust-0001'"},
		{"(PartitionKey eq 'a') and RowKey GE 'b''c' and N lt 5", "(PartitionKey eq 'a') and (RowKey ge 'b''c')"},
		{"PartitionKey eq 'a' or Quantity eq 3", ""},
		{"not (PartitionKey eq 'a') and N eq 1", ""},
		{"'a' eq PartitionKey and Total gt 5.0", ""}, // the literal first: not narrowed
		{"PartitionKey eq 5 and Total gt 5.0", ""},
		{"Total gt 5.0", ""},
	}
	for _, tt := range tests {
		if got, _ := keyScope(tt.filter).Build(); got != tt.want {
			t.Errorf("keyScope(%q) = %q, want %q", tt.filter, got, tt.want)
		}
	}
}
