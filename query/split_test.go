package query

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/internal/keyspace"
)

// TestSplit splits queries of a table on Azurite (a range of partitions of
// one entity each, one partition of many, a prefix, a small table) and
// runs the parts as segments: together they return every entity of the
// query once, each part within 50% of an even share.
func TestSplit(t *testing.T) {
	svc := newService(t, "", nil)
	tbl := testenv.NewTable[item](t, svc)
	var all []item
	for i := range 1200 {
		it := makeItem(0, i)
		it.PartitionKey = fmt.Sprintf("customer-%05d", i*9)
		all = append(all, it)
	}
	for i := range 2500 {
		it := makeItem(0, i)
		it.PartitionKey = "device"
		it.RowKey = fmt.Sprintf("%019d", 2516000000000000000+int64(i)*37000000)
		all = append(all, it)
	}
	load(t, tbl, all)
	ctx := context.Background()
	q := New(tbl)
	// The device partition is never split across PartitionKey parts: the
	// table's parts cannot be even. The parts are even in keys, not in
	// what the rest of a filter selects.
	tests := []struct {
		name     string
		q        Query[item]
		parts    int
		byRow    bool
		balanced bool
		within   func(item) bool // the query's entities
	}{
		{"table", q, 4, false, false, func(item) bool { return true }},
		{"partition", q.Where(Partition("device")), 3, true, true, func(e item) bool { return e.PartitionKey == "device" }},
		{"prefix", q.Where(PartitionKey.HasPrefix("customer-0")), 5, false, true, func(e item) bool { return strings.HasPrefix(e.PartitionKey, "customer-0") }},
		{"filter", q.Where(And(PartitionKey.Lt(String("d")), Property("N").Lt(Int32(1000)))), 2, false, false, func(e item) bool { return e.PartitionKey < "d" && e.N < 1000 }},
		{"one part", q, 1, false, false, func(item) bool { return true }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sp, err := tt.q.Split(ctx, tt.parts, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := sp.Property == RowKey, tt.byRow; got != want {
				t.Errorf("got property %s, want RowKey %v", sp.Property, want)
			}
			if got, want := len(sp.Estimates), len(sp.Bounds)+1; got != want && tt.parts > 1 {
				t.Errorf("got %d estimates for %d bounds, want %d", got, len(sp.Bounds), want)
			}
			t.Logf("%d requests, bounds %q, estimates %v", sp.Requests, sp.Bounds, sp.Estimates)
			var want []string
			for _, e := range all {
				if tt.within(e) {
					want = append(want, e.PartitionKey+"/"+e.RowKey)
				}
			}
			var got []string
			for i, seg := range sp.Segments() {
				es, err := Collect(tt.q.Where(seg.Filter).All(ctx))
				if err != nil {
					t.Fatal(err)
				}
				if share := float64(len(want)) / float64(tt.parts); tt.balanced && (float64(len(es)) < share/2 || float64(len(es)) > share*3/2) {
					t.Errorf("part %d: got %d entities, want within 50%% of %.0f", i, len(es), share)
				}
				got = append(got, keysOf(es)...)
			}
			if got, want := len(sp.Segments()), tt.parts; got != want {
				t.Errorf("got %d parts, want %d", got, want)
			}
			sameSet(t, got, want)
		})
	}
	t.Run("small", func(t *testing.T) {
		sp, err := q.Where(PartitionKey.HasPrefix("customer-00")).Split(ctx, 4, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !sp.Exact || sp.Requests != 1 || slices.Max(sp.Estimates)-slices.Min(sp.Estimates) > 1 || sum(sp.Estimates) != 112 {
			t.Errorf("got %+v, want exact estimates of 112 entities in 4 even parts, in 1 request", sp)
		}
	})
	t.Run("bad input", func(t *testing.T) {
		for _, parts := range []int{0, -1, MaxSplitParts + 1} {
			if _, err := q.Split(ctx, parts, nil); !errors.Is(err, tablekit.ErrInvalid) {
				t.Errorf("parts %d: got %v, want tablekit.ErrInvalid", parts, err)
			}
		}
		if _, err := q.Where(Raw("(")).Split(ctx, 2, nil); !errors.Is(err, tablekit.ErrInvalid) {
			t.Errorf("bad filter: got %v, want tablekit.ErrInvalid", err)
		}
	})
}

func sum(es []int64) int64 {
	var n int64
	for _, e := range es {
		n += e
	}
	return n
}

// TestSplitSegments makes segments from bounds: a range per part on the
// split property, and an error for bounds that do not increase.
func TestSplitSegments(t *testing.T) {
	tests := []struct {
		s    Split
		want []string
	}{
		{Split{}, []string{""}},
		{Split{Bounds: []string{"m"}}, []string{"PartitionKey lt 'm'", "PartitionKey ge 'm'"}},
		{Split{Property: RowKey, Bounds: []string{"a", "b"}}, []string{"RowKey lt 'a'", "RowKey ge 'a' and RowKey lt 'b'", "RowKey ge 'b'"}},
	}
	for _, tt := range tests {
		var got []string
		for _, seg := range tt.s.Segments() {
			f, err := seg.Filter.Build()
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, f)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%+v: got %q, want %q", tt.s, got, tt.want)
		}
	}
	segs := Split{Bounds: []string{"b", "a", "c"}}.Segments()
	if err := segs[1].Filter.Err(); !errors.Is(err, tablekit.ErrInvalid) {
		t.Errorf("bounds out of order: got %v, want tablekit.ErrInvalid", err)
	}
}

// TestKeyRange reads what filters fix of the keys.
func TestKeyRange(t *testing.T) {
	p := "p"
	tests := []struct {
		f    Filter
		want keyRange
	}{
		{Filter{}, keyRange{}},
		{Partition("p"), keyRange{partition: &p}},
		{PartitionKey.HasPrefix("ab"), keyRange{pk: rangeOf("ab", false, "ac")}},
		{And(PartitionKey.Gt(String("a")), PartitionKey.Ge(String("a")), PartitionKey.Lt(String("x")), PartitionKey.Lt(String("y"))), keyRange{pk: rangeOf("a", true, "x")}},
		{And(Partition("p"), RowKey.Ge(String("r"))), keyRange{partition: &p, rk: rangeOf("r", false, "")}},
		{Or(PartitionKey.Ge(String("a")), PartitionKey.Lt(String("b"))), keyRange{}},
		{And(Property("N").Ge(Int32(1)), PartitionKey.Le(String("b"))), keyRange{}},
	}
	for _, tt := range tests {
		got := tt.f.keyRange()
		if (got.partition == nil) != (tt.want.partition == nil) || (got.partition != nil && *got.partition != *tt.want.partition) || got.pk != tt.want.pk || got.rk != tt.want.rk {
			t.Errorf("%s: got %+v, want %+v", tt.f, got, tt.want)
		}
	}
}

func rangeOf(lo string, after bool, hi string) keyspace.Range {
	return keyspace.Range{Lo: lo, After: after, Hi: hi, HasHi: hi != ""}
}
