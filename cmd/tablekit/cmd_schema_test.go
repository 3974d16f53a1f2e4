package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestKeyPattern(t *testing.T) {
	tests := []struct{ key, want string }{
		{"cust-0001", "[a-z]{4}-[0-9]{4}"},
		{"0f8fad5b-d9cb-469f-a165-70867728950e", "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"},
		{"2024-05-01T10:00:00Z", "[0-9]{4}-[0-9]{2}-[0-9A-Z]{5}:[0-9]{2}:[0-9A-Z]{3}"},
		{"Alice", "[A-Za-z]{5}"},
		{"ABC9", "[0-9A-F]{4}"},
		{"AbC9", "[0-9A-Za-z]{4}"},
		{"b0x", "[0-9a-z]{3}"},
		{"x", "[a-z]"},
		{"", ""},
		{"a.b*c", `[a-z]\.[a-z]\*[a-z]`},
		{"tab\there", `[a-z]{3}\x09[a-z]{4}`},
		{"zoë", "[a-z]{2}ë"},
	}
	for _, tt := range tests {
		if got := keyPattern(tt.key); got != tt.want {
			t.Errorf("keyPattern(%q) = %q, want %q", tt.key, got, tt.want)
		}
	}
}

func TestShapeSizes(t *testing.T) {
	tests := []struct {
		sizes            []int
		min, median, max int
		largest          string // RowKey of the first entity of max
	}{
		{[]int{5}, 5, 5, 5, "0"},
		{[]int{9, 1, 5}, 1, 5, 9, "0"},
		{[]int{4, 1, 3, 2}, 1, 2, 4, "0"},
		{[]int{7, 7, 1, 1, 1}, 1, 1, 7, "0"},
		{[]int{1, 2, 8, 8}, 1, 2, 8, "2"},
	}
	for _, tt := range tests {
		sh := newShape(true, nil)
		for i, n := range tt.sizes {
			sh.add("p", fmt.Sprint(i), nil, n)
		}
		r := sh.report("t", false)
		if got, want := [4]any{r.Size.Min, r.Size.Median, r.Size.Max, r.Size.Largest[1]}, [4]any{tt.min, tt.median, tt.max, tt.largest}; got != want {
			t.Errorf("sizes %v: min, median, max, largest %v, want %v", tt.sizes, got, want)
		}
	}
}

func TestShapeProperties(t *testing.T) {
	sh := newShape(true, nil)
	sh.add("p", "1", map[string]any{"Total": 1.5, "Kind": "a"}, 1)
	sh.add("p", "2", map[string]any{"Total": int32(2)}, 1)
	sh.add("p", "3", map[string]any{"Total": 2.5, "Rare": []byte{1}}, 1)
	got := sh.report("t", false).Properties
	want := []propReport{
		{"Kind", map[string]int64{"Edm.String": 1}, 1, 2},
		{"Rare", map[string]int64{"Edm.Binary": 1}, 1, 2},
		{"Total", map[string]int64{"Edm.Double": 2, "Edm.Int32": 1}, 3, 0},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("properties %+v, want %+v", got, want)
	}
}

// TestPartitionTally feeds partitions in the order a parallel scan hands
// them out: each segment in key order, the segments interleaved at random.
// The tally, one open partition per segment (or a map without key order),
// must count as a map of every partition does.
func TestPartitionTally(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var pks []string
	want := map[string]int64{}
	for i := range 300 {
		pk := fmt.Sprintf("p%03d", i)
		n := int64(1 + rng.IntN(40))
		if i == 150 {
			n = 41 // one clear biggest
		}
		want[pk] = n
		for range n {
			pks = append(pks, pk)
		}
	}
	bounds := []string{"p050", "p051", "p120", "p299"}
	segs := make([][]string, len(bounds)+1)
	for _, pk := range pks {
		i, _ := slices.BinarySearch(bounds, pk)
		if i < len(bounds) && bounds[i] == pk {
			i++
		}
		segs[i] = append(segs[i], pk)
	}
	var stream []string
	for left := len(pks); left > 0; {
		s := &segs[rng.IntN(len(segs))]
		if k := min(len(*s), 1+rng.IntN(30)); k > 0 {
			stream, *s, left = append(stream, (*s)[:k]...), (*s)[k:], left-k
		}
	}
	var wantTop []partCount
	for pk, n := range want {
		wantTop = append(wantTop, partCount{pk, n})
	}
	slices.SortFunc(wantTop, func(a, b partCount) int {
		if a.Entities != b.Entities {
			return int(b.Entities - a.Entities)
		}
		return compareKeyStrings(a.PartitionKey, "", b.PartitionKey, "")
	})
	wantTop = wantTop[:topPartitions]
	for _, ordered := range []bool{true, false} {
		sh := newShape(ordered, bounds)
		for _, pk := range stream {
			sh.add(pk, "r", nil, 1)
		}
		n, exact, top := sh.parts.result()
		if n != int64(len(want)) || !exact || !reflect.DeepEqual(top, wantTop) {
			t.Errorf("ordered %v: %d partitions (exact %v), biggest %v; want %d, exact, %v", ordered, n, exact, top, len(want), wantTop)
		}
	}
}

func TestKeyShapeBounded(t *testing.T) {
	k := keyShape{patterns: map[string]int64{}}
	for i := range maxPatterns + 5 {
		k.add(fmt.Sprintf("%s-1", string(rune('a'+i%26))+fmt.Sprint(i/26)))
	}
	if len(k.patterns) > maxPatterns {
		t.Errorf("%d patterns held, want at most %d", len(k.patterns), maxPatterns)
	}
	var sum int64
	for _, n := range k.patterns {
		sum += n
	}
	if got, want := sum+k.other, int64(maxPatterns+5); got != want {
		t.Errorf("patterns and other count %d keys, want %d", got, want)
	}
}

// TestShapeEmpty: a scope without entities reports zeros and empty lists,
// not nulls, in JSON.
func TestShapeEmpty(t *testing.T) {
	b, err := json.Marshal(newShape(true, []string{"m"}).report("t", false))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"entities":0`, `"properties":[]`, `"biggest":[]`, `"patterns":[]`, `"count":0,"exact":true`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("%s does not hold %s", b, want)
		}
	}
}
