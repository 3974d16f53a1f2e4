package query

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/internal/wire"
	"github.com/tablekit/tablekit/table"
)

func TestLiterals(t *testing.T) {
	g, err := table.ParseGUID("0F8FAD5B-D9CB-469F-A165-70867728950E")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		v    Value
		want string
	}{
		{"string", String("abc"), `'abc'`},
		{"string empty", String(""), `''`},
		{"string quote", String("O'Brien"), `'O''Brien'`},
		{"string only quotes", String("''"), `''''''`},
		{"string injection", String("' or 1 eq 1 or '"), `''' or 1 eq 1 or '''`},
		{"string unicode", String("日本語😀"), `'日本語😀'`},
		{"string control", String("a\tb\nc\x01"), "'a\tb\nc\x01'"},
		{"string double quote", String(`say "hi"`), `'say "hi"'`},
		{"bool true", Bool(true), `true`},
		{"bool false", Bool(false), `false`},
		{"int32", Int32(42), `42`},
		{"int32 negative", Int32(-2147483648), `-2147483648`},
		{"int64", Int64(42), `42L`},
		{"int64 max", Int64(math.MaxInt64), `9223372036854775807L`},
		{"int64 negative", Int64(-5), `-5L`},
		{"double whole", Double(1), `1.0`},
		{"double zero", Double(0), `0.0`},
		{"double negative zero", Double(math.Copysign(0, -1)), `-0.0`},
		{"double fraction", Double(100.25), `100.25`},
		{"double negative", Double(-2.5), `-2.5`},
		{"double small", Double(1e-7), `0.0000001`},
		{"double large", Double(1e21), `1000000000000000000000.0`},
		{"datetime utc", DateTime(time.Date(2024, 1, 2, 3, 4, 5, 123456789, time.UTC)), `datetime'2024-01-02T03:04:05.1234567Z'`},
		{"datetime zone", DateTime(time.Date(2024, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 2*3600))), `datetime'2024-01-02T01:04:05.0000000Z'`},
		{"guid", GUID(g), `guid'0f8fad5b-d9cb-469f-a165-70867728950e'`},
		{"binary", Binary([]byte{0x00, 0x0a, 0xff}), `X'000aff'`},
		{"binary empty", Binary(nil), `X''`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.v.err != nil {
				t.Fatalf("err = %v", tt.v.err)
			}
			if got := tt.v.String(); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

func TestInvalidLiterals(t *testing.T) {
	tests := []struct {
		name string
		v    Value
	}{
		{"string not utf8", String("a\xffb")},
		{"double NaN", Double(math.NaN())},
		{"double +Inf", Double(math.Inf(1))},
		{"double -Inf", Double(math.Inf(-1))},
		{"datetime year 10000", DateTime(time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC))},
		{"datetime year 0", DateTime(time.Date(0, 12, 31, 0, 0, 0, 0, time.UTC))},
		{"zero value", Value{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := Property("P").Eq(tt.v)
			_, err := f.Build()
			if !errors.Is(err, tablekit.ErrInvalid) {
				t.Fatalf("Build err = %v, want tablekit.ErrInvalid", err)
			}
			if !strings.HasPrefix(f.String(), "!(") {
				t.Errorf("String() = %q, want an unusable description", f.String())
			}
		})
	}
}

func TestFilterBuild(t *testing.T) {
	a := Property("A").Eq(Int32(1))
	b := Property("B").Gt(String("x"))
	c := Property("C").Le(Double(2))
	tests := []struct {
		name string
		f    Filter
		want string
	}{
		{"zero", Filter{}, ""},
		{"eq", a, "A eq 1"},
		{"ops", And(Property("N").Ne(Int64(1)), Property("N").Ge(Int64(2)), Property("N").Lt(Int64(3))), "N ne 1L and N ge 2L and N lt 3L"},
		{"and", And(a, b), "A eq 1 and B gt 'x'"},
		{"and flattens", And(And(a, b), c), "A eq 1 and B gt 'x' and C le 2.0"},
		{"or in and", And(Or(a, b), c), "(A eq 1 or B gt 'x') and C le 2.0"},
		{"and in or", Or(And(a, b), c), "(A eq 1 and B gt 'x') or C le 2.0"},
		{"not", Not(Or(a, b)), "not (A eq 1 or B gt 'x')"},
		{"not in and", And(Not(a), b), "not (A eq 1) and B gt 'x'"},
		{"and of one", And(a), "A eq 1"},
		{"and with zero", And(Filter{}, a, Filter{}), "A eq 1"},
		{"and empty", And(), ""},
		{"or with zero matches all", Or(a, Filter{}), ""},
		{"raw nested", And(Raw("X eq 1 or Y eq 2"), a), "(X eq 1 or Y eq 2) and A eq 1"},
		{"raw alone", Raw("X eq 1"), "X eq 1"},
		{"point", Point("p'1", "r 1"), "PartitionKey eq 'p''1' and RowKey eq 'r 1'"},
		{"partition", Partition("p"), "PartitionKey eq 'p'"},
		{"timestamp", Timestamp.Gt(DateTime(time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC))), "Timestamp gt datetime'2020-01-01T00:00:00.0000000Z'"},
		{"unicode property", Property("Größe").Eq(Int32(1)), "Größe eq 1"},
		{"underscore property", Property("_x1").Eq(Bool(true)), "_x1 eq true"},
		{"injection stays a literal", PartitionKey.Eq(String("' or 1 eq 1 or '")), "PartitionKey eq ''' or 1 eq 1 or '''"},
		{"injection close paren", And(Property("S").Eq(String("x') or (1 eq 1")), a), "S eq 'x'') or (1 eq 1' and A eq 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.f.Build()
			if err != nil {
				t.Fatalf("Build: %v", err)
			}
			if got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
			if s := tt.f.String(); s != got {
				t.Errorf("String() = %q, Build() = %q", s, got)
			}
		})
	}
}

func TestFilterErrors(t *testing.T) {
	ok := Property("A").Eq(Int32(1))
	many := make([]Filter, MaxComparisons+1)
	for i := range many {
		many[i] = ok
	}
	tests := []struct {
		name string
		f    Filter
		msg  string
	}{
		{"empty property", Property("").Eq(Int32(1)), "property name is empty"},
		{"digit first", Property("1a").Eq(Int32(1)), "identifier"},
		{"space", Property("a b").Eq(Int32(1)), "identifier"},
		{"injection in name", Property("a eq 1 or b").Eq(Int32(1)), "identifier"},
		{"keyword", Property("and").Eq(Int32(1)), "keyword"},
		{"keyword case", Property("NOT").Eq(Int32(1)), "keyword"},
		{"too long", Property(strings.Repeat("a", 256)).Eq(Int32(1)), "256 bytes, at most 255"},
		{"pk not string", PartitionKey.Eq(Int32(1)), "PartitionKey is a string"},
		{"rk not string", RowKey.Gt(Int64(1)), "RowKey is a string"},
		{"timestamp not datetime", Timestamp.Eq(String("x")), "Timestamp is an Edm.DateTime"},
		{"not zero", Not(Filter{}), "match nothing"},
		{"raw empty", Raw("  "), "empty"},
		{"raw open quote", Raw("A eq 'x"), "unterminated"},
		{"raw close paren", Raw("A eq 1) or (B eq 2"), "unbalanced ')'"},
		{"raw open paren", Raw("(A eq 1"), "unbalanced '('"},
		{"raw not utf8", Raw("A eq '\xff'"), "UTF-8"},
		{"first error kept", And(ok, Property("1").Eq(Int32(1)), Property("x y").Eq(Int32(1))), `"1"`},
		{"error through or", Or(ok, Not(Filter{})), "match nothing"},
		{"error through not", Not(Property("").Eq(Int32(1))), "property name is empty"},
		{"prefix not utf8", RowKey.HasPrefix("\xff"), "UTF-8"},
		{"too many comparisons", And(many...), "16 comparisons"},
		{"raw comparisons counted", And(Raw(strings.Repeat("A eq 1 and ", 14)+"A eq 1"), ok), "16 comparisons"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.f.Build()
			if !errors.Is(err, tablekit.ErrInvalid) {
				t.Fatalf("err = %v, want tablekit.ErrInvalid", err)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("err = %q, want it to mention %q", err, tt.msg)
			}
		})
	}
	// A Raw comparison count ignores operators inside strings and words.
	f := Raw("Name eq 'a eq b' and Equal eq 1")
	if f.err != nil || f.n.nraw != 2 {
		t.Errorf("raw comparisons = %d (err %v), want 2", f.n.nraw, f.err)
	}
}

func TestFiltersAreImmutable(t *testing.T) {
	a := Property("A").Eq(Int32(1))
	b := Property("B").Eq(Int32(2))
	ab := And(a, b)
	_ = And(ab, Property("C").Eq(Int32(3)))
	_ = Or(ab, a)
	_ = Not(ab)
	if got, _ := ab.Build(); got != "A eq 1 and B eq 2" {
		t.Errorf("ab changed: %s", got)
	}
	if got, _ := a.Build(); got != "A eq 1" {
		t.Errorf("a changed: %s", got)
	}
}

func TestHasPrefix(t *testing.T) {
	tests := []struct {
		prefix string
		want   string
	}{
		{"abc", "RowKey ge 'abc' and RowKey lt 'abd'"},
		{"a'", "RowKey ge 'a''' and RowKey lt 'a('"},
		{"az", "RowKey ge 'az' and RowKey lt 'a{'"},
		{"", "RowKey ge ''"},
		{"\uffff", "RowKey ge '\uffff'"},
		{"a\uffff\uffff", "RowKey ge 'a\uffff\uffff' and RowKey lt 'b'"},
		{"x\ud7ff", "RowKey ge 'x\ud7ff' and RowKey lt 'x\U00010000'"},
		{"x\U0010ffff", "RowKey ge 'x\U0010ffff' and RowKey lt 'x\ue000'"},
		{"x\U0001f600", "RowKey ge 'x\U0001f600' and RowKey lt 'x\U0001f601'"},
		{"x\ufffe", "RowKey ge 'x\ufffe' and RowKey lt 'x\uffff'"},
	}
	for _, tt := range tests {
		got, err := RowKey.HasPrefix(tt.prefix).Build()
		if err != nil {
			t.Fatalf("%q: %v", tt.prefix, err)
		}
		if got != tt.want {
			t.Errorf("HasPrefix(%q)\ngot  %q\nwant %q", tt.prefix, got, tt.want)
		}
	}
}

// TestPrefixEndBounds checks the defining property of prefixEnd: every
// string with the prefix sorts before it (in UTF-16 order), and it does not
// itself have the prefix.
func TestPrefixEndBounds(t *testing.T) {
	runes := []rune{0, 'a', 0xD7FF, 0xE000, 0xFFFE, 0xFFFF, 0x10000, 0x1F600, 0x10FFFF}
	var prefixes []string
	for _, a := range runes {
		prefixes = append(prefixes, string(a), "k"+string(a))
		for _, b := range runes {
			prefixes = append(prefixes, string([]rune{a, b}))
		}
	}
	for _, p := range prefixes {
		end, ok := wire.PrefixEnd(p)
		if !ok {
			if strings.Trim(p, "\uffff") != "" {
				t.Errorf("PrefixEnd(%q) has no end", p)
			}
			continue
		}
		if strings.HasPrefix(end, p) || wire.CompareUTF16(end, p) <= 0 {
			t.Errorf("PrefixEnd(%q) = %q is not above the prefix", p, end)
		}
		for _, r := range runes {
			for _, s := range []string{p, p + string(r), p + string(r) + "\U0010ffff\uffff"} {
				if wire.CompareUTF16(s, end) >= 0 {
					t.Errorf("%q has prefix %q but is not below its end %q", s, p, end)
				}
			}
		}
	}
}

func TestCompareUTF16(t *testing.T) {
	// In UTF-16, U+E000..U+FFFF sort after supplementary characters, unlike
	// Go's byte order.
	ordered := []string{"", "\x00", "a", "ab", "b", "\ud7ff", "\U00010000", "\U0001f600", "\U0010ffff", "\ue000", "\uffff", "\uffff\x00"}
	for i := range ordered {
		for j := range ordered {
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			if got := wire.CompareUTF16(ordered[i], ordered[j]); got != want {
				t.Errorf("wire.CompareUTF16(%q, %q) = %d, want %d", ordered[i], ordered[j], got, want)
			}
		}
	}
	if got := compareKeys(keyPair{"a", "z"}, keyPair{"b", "a"}); got != -1 {
		t.Errorf("compareKeys orders by PartitionKey first: %d", got)
	}
}

func TestScope(t *testing.T) {
	tests := []struct {
		name   string
		f      Filter
		want   Scope
		single bool
		point  bool
	}{
		{"zero", Filter{}, ScopeTableScan, false, false},
		{"property only", Property("A").Eq(Int32(1)), ScopeTableScan, false, false},
		{"point", Point("p", "r"), ScopePoint, true, true},
		{"point reversed", And(RowKey.Eq(String("r")), PartitionKey.Eq(String("p"))), ScopePoint, true, true},
		{"point plus property", And(Point("p", "r"), Property("A").Eq(Int32(1))), ScopePoint, true, false},
		{"partition", Partition("p"), ScopePartition, true, false},
		{"partition row range", And(Partition("p"), RowKey.HasPrefix("2024")), ScopePartition, true, false},
		{"partition property", And(Partition("p"), Property("A").Gt(Int32(1))), ScopePartition, true, false},
		{"row key only", RowKey.Eq(String("r")), ScopeTableScan, false, false},
		{"pk range", And(PartitionKey.Ge(String("a")), PartitionKey.Lt(String("b"))), ScopeRange, false, false},
		{"pk prefix", PartitionKey.HasPrefix("ab"), ScopeRange, false, false},
		{"pk ge empty", PartitionKey.Ge(String("")), ScopeTableScan, false, false},
		{"pk gt", PartitionKey.Gt(String("m")), ScopeRange, false, false},
		{"pk ne", PartitionKey.Ne(String("m")), ScopeTableScan, false, false},
		{"or partitions", Or(Partition("a"), Partition("b")), ScopeTableScan, false, false},
		{"or same partition", Or(Point("a", "1"), Point("a", "2")), ScopePartition, true, false},
		{"or same point", Or(Point("a", "1"), Point("a", "1")), ScopePoint, true, false},
		{"not", Not(Partition("a")), ScopeTableScan, false, false},
		{"raw", Raw("PartitionKey eq 'a'"), ScopeTableScan, false, false},
		{"raw and partition", And(Raw("A eq 1"), Partition("a")), ScopePartition, true, false},
		{"invalid", Property("").Eq(Int32(1)), ScopeTableScan, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.f.Scope(); got != tt.want {
				t.Errorf("Scope() = %v, want %v", got, tt.want)
			}
			if got := tt.f.Scope().SinglePartition(); got != tt.single {
				t.Errorf("SinglePartition() = %v, want %v", got, tt.single)
			}
			if _, _, got := tt.f.point(); got != tt.point {
				t.Errorf("point() = %v, want %v", got, tt.point)
			}
		})
	}
	if pk, rk, _ := Point("p'", "r").point(); pk != "p'" || rk != "r" {
		t.Errorf("point() keys = %q, %q", pk, rk)
	}
	for s, want := range map[Scope]string{ScopePoint: "point", ScopePartition: "partition", ScopeRange: "range", ScopeTableScan: "table scan"} {
		if s.String() != want {
			t.Errorf("%d.String() = %q, want %q", s, s.String(), want)
		}
	}
}

func TestSegmentsUnit(t *testing.T) {
	build := func(segs []Segment) ([]string, error) {
		var out []string
		for _, s := range segs {
			txt, err := s.Filter.Build()
			if err != nil {
				return out, err
			}
			out = append(out, txt)
		}
		return out, nil
	}
	got, err := build(RangeSegments("b", "d"))
	want := []string{"PartitionKey lt 'b'", "PartitionKey ge 'b' and PartitionKey lt 'd'", "PartitionKey ge 'd'"}
	if err != nil || strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("RangeSegments = %q, %v; want %q", got, err, want)
	}
	if got, err := build(RangeSegments()); err != nil || len(got) != 1 || got[0] != "" {
		t.Errorf("RangeSegments() = %q, %v; want one whole-table segment", got, err)
	}
	got, err = build(ShardSegments(3))
	want = []string{"PartitionKey ge '0' and PartitionKey lt '1'", "PartitionKey ge '1' and PartitionKey lt '2'", "PartitionKey ge '2' and PartitionKey lt '3'"}
	if err != nil || strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("ShardSegments(3) = %q, %v; want %q", got, err, want)
	}
	for name, segs := range map[string][]Segment{
		"duplicate partition":   PartitionSegments("a", "b", "a"),
		"bounds not increasing": RangeSegments("b", "b"),
		"bounds decreasing":     RangeSegments("c", "b"),
		"prefix overlap":        PrefixSegments("ab", "a"),
		"empty prefix overlaps": PrefixSegments("a", ""),
	} {
		if _, err := build(segs); !errors.Is(err, tablekit.ErrInvalid) {
			t.Errorf("%s: err = %v, want tablekit.ErrInvalid", name, err)
		}
	}
}

func TestZeroQuery(t *testing.T) {
	var q Query[struct{ PartitionKey, RowKey string }]
	if _, err := q.Resume(""); !errors.Is(err, tablekit.ErrInvalid) {
		t.Errorf("zero Query: Resume err = %v", err)
	}
	if _, err := q.Parallel(RangeSegments(), nil); !errors.Is(err, tablekit.ErrInvalid) {
		t.Errorf("zero Query: Parallel err = %v", err)
	}
	if _, err := New[struct{ PartitionKey, RowKey string }](nil).Where(Property("1").Eq(Int32(1))).Resume(""); !errors.Is(err, tablekit.ErrInvalid) {
		t.Errorf("nil table: err = %v, want the first error kept", err)
	}
}
