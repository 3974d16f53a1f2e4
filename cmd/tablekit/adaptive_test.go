package main

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/tablekit/tablekit/internal/wire"
)

// keyList answers the discovery's probes from a list of keys, as the
// service answers a $top=1 query: the least key in [lo, hi). It is the
// split's input here; the end-to-end tests probe Azurite.
func keyList(keys []string, probes *atomic.Int64) prober {
	ks := slices.Clone(keys)
	slices.SortFunc(ks, wire.CompareUTF16)
	return func(_ context.Context, lo, hi string) (string, bool, error) {
		probes.Add(1)
		for _, k := range ks {
			if wire.CompareUTF16(k, lo) >= 0 && (hi == "" || wire.CompareUTF16(k, hi) < 0) {
				return k, true, nil
			}
		}
		return "", false, nil
	}
}

func keysf(n int, format string, f func(i int) int) []string {
	ks := make([]string, n)
	for i := range ks {
		ks[i] = fmt.Sprintf(format, f(i))
	}
	return ks
}

func TestAdaptiveBounds(t *testing.T) {
	id := func(i int) int { return i }
	r := rand.New(rand.NewPCG(3, 4))
	var random []string
	for range 3000 {
		random = append(random, randomKey(r, keyCharSets["alnum"]))
	}
	var hex []string
	for range 3000 {
		hex = append(hex, fmt.Sprintf("%08x", r.Uint32()))
	}
	tests := []struct {
		name     string
		keys     []string
		minSegs  int // segments holding keys, at least
		maxShare int // the most keys in one segment
		maxSegs  int // 0: 65
	}{
		{"benchmark partitions", keysf(50, "p%02d", id), 50, 1, 0},
		{"customer numbers", keysf(5000, "customer-%06d", func(i int) int { return i * 3 }), 30, 300, 0},
		{"dates", keysf(600, "2024-05-%03d", id), 30, 60, 0},
		{"one key", []string{"only"}, 1, 1, 2},
		{"five short keys", []string{"a", "b", "c", "d", "e"}, 3, 2, 12},
		{"no keys", nil, 0, 0, 1},
		{"empty key", []string{"", "a", "b"}, 1, 3, 0},
		{"hex", hex, 10, 600, 0},
		{"random", random, 10, 1000, 0},
		{"unicode", []string{"é1", "é2", "é3", "中a", "中b", "\U0001F600x", "\U0001F600y", "\uff01"}, 1, 8, 0},
	}
	for _, tt := range tests {
		for _, sh := range []share{{1, 1}, {1, 3}, {2, 3}, {3, 3}} {
			t.Run(fmt.Sprintf("%s/%s", tt.name, sh), func(t *testing.T) {
				rs, err := splitRanges(keyCharSets["alnum"], sh, 1)
				if err != nil {
					t.Fatal(err)
				}
				whole := rs[0]
				var probes atomic.Int64
				bounds, err := adaptiveBounds(context.Background(), keyList(tt.keys, &probes), whole, keyCharSets["alnum"], 64, 16)
				if err != nil {
					t.Fatal(err)
				}
				if err := checkBounds(bounds, whole); err != nil {
					t.Fatalf("bounds %q: %v", bounds, err)
				}
				segs := boundsRanges(whole, bounds)
				counts := make([]int, len(segs))
				inShare := 0
				for _, k := range tt.keys {
					in := 0
					for i, s := range segs {
						if s.contains(k) {
							in++
							counts[i]++
						}
					}
					if want := b2i(whole.contains(k)); in != want {
						t.Fatalf("key %q in %d segments, want %d", k, in, want)
					}
					inShare += in
				}
				t.Logf("%d probes, %d segments", probes.Load(), len(segs))
				if got := probes.Load(); got > 20 {
					t.Errorf("%d probes, want at most 20", got)
				}
				if maxSegs := cmp.Or(tt.maxSegs, 65); len(segs) > maxSegs {
					t.Errorf("%d segments, want at most %d", len(segs), maxSegs)
				}
				if sh.N > 1 {
					return // balance is judged on the whole table
				}
				filled := 0
				for _, c := range counts {
					if c > 0 {
						filled++
					}
				}
				if filled < min(tt.minSegs, inShare) || slices.Max(counts) > tt.maxShare {
					t.Errorf("%d segments hold keys (want >= %d), the fullest %d (want <= %d); bounds %q", filled, tt.minSegs, slices.Max(counts), tt.maxShare, bounds)
				}
			})
		}
	}
}

func TestSuccessor(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"p", "q", true},
		{"p0", "p1", true},
		{"a\uffff", "b", true},
		{"\uffff", "", false},
		{"", "", false},
		{"\ud7ff", "\U00010000", true},
		{"\U0010FFFF", "\ue000", true},
	}
	for _, tt := range tests {
		got, ok := successor(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("successor(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
		if ok && wire.CompareUTF16(got, tt.in+"\uffff\uffff") <= 0 {
			t.Errorf("successor(%q) = %q is not after every string starting with it", tt.in, got)
		}
	}
}
