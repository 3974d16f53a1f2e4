package keyspace

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/tablekit/tablekit/internal/wire"
)

// TestCoordKeepsOrder checks what the splitter relies on: the coordinate
// never reverses the key order, and the key it names at a point is at or
// before that point, for keys of every kind, wide and narrow.
func TestCoordKeepsOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	sets := map[string][]string{}
	for range 2000 {
		sets["random"] = append(sets["random"], randomKey(r))
		sets["dates"] = append(sets["dates"], "x"+epoch.Add(time.Duration(r.IntN(1e6))*time.Minute).Format(time.RFC3339)+"\x00"+fmt.Sprint(r.IntN(50)))
		sets["hex"] = append(sets["hex"], fmt.Sprintf("x%08x", r.Uint32()))
	}
	for name, keys := range sets {
		slices.SortFunc(keys, wire.CompareUTF16)
		for _, narrow := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/narrow=%v", name, narrow), func(t *testing.T) {
				prefix := ""
				if name != "random" {
					prefix = "x"
				}
				c := newCoord(prefix, keys[:200], narrow) // built from some, used on all
				prev := -1.0
				for _, k := range keys {
					u := c.at(k)
					if u < prev || u < 0 || u > 1 {
						t.Fatalf("at(%q) = %v after %v: want non-decreasing in [0, 1]", k, u, prev)
					}
					prev = u
				}
				prevKey := ""
				for i := range 1000 {
					u := float64(i) / 1000
					k := c.key(u)
					if got := c.at(k); got > u+1e-12 {
						t.Fatalf("at(key(%v)) = %v, want at most %v (key %q)", u, got, u, k)
					}
					if wire.CompareUTF16(k, prevKey) < 0 {
						t.Fatalf("key(%v) = %q is before key at a smaller point, %q", u, k, prevKey)
					}
					prevKey = k
				}
			})
		}
	}
}

func TestRange(t *testing.T) {
	tests := []struct {
		r    Range
		k    string
		in   bool
		cuts bool
	}{
		{Range{}, "", true, false},
		{Range{}, "a", true, true},
		{Range{Lo: "b"}, "a", false, false},
		{Range{Lo: "b"}, "b", true, false},
		{Range{Lo: "b", After: true}, "b", false, false},
		{Range{Lo: "b", After: true}, "b0", true, true},
		{Range{Hi: "m", HasHi: true}, "m", false, false},
		{Range{Hi: "m", HasHi: true}, "l", true, true},
		{Range{Lo: "\ue000"}, "\U0001F600", false, false}, // UTF-16 order: the surrogates come first
	}
	for _, tt := range tests {
		if got := tt.r.Contains(tt.k); got != tt.in {
			t.Errorf("%+v.Contains(%q) = %v, want %v", tt.r, tt.k, got, tt.in)
		}
		if got := tt.r.Cuts(tt.k); got != tt.cuts {
			t.Errorf("%+v.Cuts(%q) = %v, want %v", tt.r, tt.k, got, tt.cuts)
		}
	}
	r := Range{Lo: "b", Hi: "y", HasHi: true}
	for _, bad := range [][]string{{"c", "c"}, {"d", "c"}, {"a"}, {"y"}, {"b"}} {
		if err := CheckBounds(bad, r); err == nil {
			t.Errorf("CheckBounds(%q) = nil, want an error", bad)
		}
	}
	if err := CheckBounds([]string{"c", "x"}, r); err != nil {
		t.Errorf("CheckBounds: %v", err)
	}
	got := Tiles(r, []string{"c", "x"})
	want := []Range{{Lo: "b", Hi: "c", HasHi: true}, {Lo: "c", Hi: "x", HasHi: true}, {Lo: "x", Hi: "y", HasHi: true}}
	if !slices.Equal(got, want) {
		t.Errorf("Tiles = %+v, want %+v", got, want)
	}
}
