package main

import (
	"math"
	"reflect"
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
