package keyspace

import (
	"context"
	"slices"
	"sync/atomic"

	"github.com/tablekit/tablekit/internal/wire"
)

// sliceReader answers reads from sorted keys as the service answers a
// keys-only query with $top: the first keys of the range, and whether the
// range holds more. It counts its reads, which are the splitter's requests.
type sliceReader struct {
	keys      []Key // in key order
	partition string
	byRow     bool
	reads     atomic.Int64
	fail      error // returned by every read after the first
}

func compareKeys(a, b Key) int {
	if c := wire.CompareUTF16(a.PK, b.PK); c != 0 {
		return c
	}
	return wire.CompareUTF16(a.RK, b.RK)
}

// newSliceReader sorts keys; byRow reads the RowKeys of partition pk only.
func newSliceReader(keys []Key, byRow bool, pk string) *sliceReader {
	ks := slices.Clone(keys)
	if byRow {
		ks = slices.DeleteFunc(ks, func(k Key) bool { return k.PK != pk })
	}
	slices.SortFunc(ks, compareKeys)
	return &sliceReader{keys: ks, byRow: byRow, partition: pk}
}

func (s *sliceReader) value(k Key) string {
	if s.byRow {
		return k.RK
	}
	return k.PK
}

func (s *sliceReader) Read(_ context.Context, r Range, n int) ([]Key, bool, error) {
	if s.reads.Add(1) > 1 && s.fail != nil {
		return nil, false, s.fail
	}
	i := s.first(r)
	var out []Key
	for ; i < len(s.keys) && r.Contains(s.value(s.keys[i])); i++ {
		if len(out) == n {
			return out, true, nil
		}
		out = append(out, s.keys[i])
	}
	return out, false, nil
}

// first is the index of the first key at or after r's lower end.
func (s *sliceReader) first(r Range) int {
	i, _ := slices.BinarySearchFunc(s.keys, r.Lo, func(k Key, lo string) int {
		return wire.CompareUTF16(s.value(k), lo)
	})
	for r.After && i < len(s.keys) && s.value(s.keys[i]) == r.Lo {
		i++
	}
	return i
}

// counts is how many keys fall in each of the tiles, in order.
func (s *sliceReader) counts(tiles []Range) []int {
	out := make([]int, len(tiles))
	for j, r := range tiles {
		for i := s.first(r); i < len(s.keys) && r.Contains(s.value(s.keys[i])); i++ {
			out[j]++
		}
	}
	return out
}
