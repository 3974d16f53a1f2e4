package main

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/tablekit/tablekit/internal/wire"
	"github.com/tablekit/tablekit/query"
)

// splitDepth is the number of leading key characters the split looks at.
// It is fixed, not derived from n, so that a machine's share depends only
// on i, n and the key characters: two machines that were given different
// --parallel values still agree on where their shares meet.
const splitDepth = 3

// keyCharSets are the named --key-chars sets. The set only tunes balance
// (how evenly entities fall into the shares); coverage is exact for any
// keys, including keys with characters outside the set.
var keyCharSets = map[string]string{
	"alnum":     "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
	"hex":       "0123456789abcdef",
	"HEX":       "0123456789ABCDEF",
	"digits":    "0123456789",
	"printable": printableASCII(),
}

func printableASCII() string {
	var b strings.Builder
	for c := byte(0x20); c < 0x7f; c++ {
		b.WriteByte(c)
	}
	return b.String()
}

// share is one of n deterministic parts of the key space (--segment i/n),
// numbered 1 to n. The zero share is the whole key space.
type share struct{ I, N int }

func parseShare(s string) (share, error) {
	if s == "" {
		return share{1, 1}, nil
	}
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return share{}, fmt.Errorf("--segment %q: want i/n with 1 <= i <= n, e.g. 2/4", s)
	}
	return share{i, n}, nil
}

func (s share) String() string { return fmt.Sprintf("%d/%d", s.I, s.N) }

// keyChars resolves a --key-chars value: a set name or the characters
// themselves (printable ASCII), sorted and deduplicated so that their order
// is the order in which the service compares keys.
func keyChars(v string) (string, error) {
	if set, ok := keyCharSets[v]; ok {
		return set, nil
	}
	seen := map[byte]bool{}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c < 0x20 || c > 0x7e {
			return "", fmt.Errorf("--key-chars: only printable ASCII characters, or one of alnum, hex, HEX, digits, printable")
		}
		seen[c] = true
	}
	if len(seen) < 2 {
		return "", fmt.Errorf("--key-chars: at least two distinct characters")
	}
	cs := make([]byte, 0, len(seen))
	for c := range seen {
		cs = append(cs, c)
	}
	sort.Slice(cs, func(i, j int) bool { return cs[i] < cs[j] })
	return string(cs), nil
}

// keyRange is a half-open range of keys [Lo, Hi); an unset bound is open.
type keyRange struct {
	Lo, Hi       string
	HasLo, HasHi bool
}

// contains compares as the service does (UTF-16 code units), which differs
// from Go's byte order for characters above U+FFFF.
func (r keyRange) contains(k string) bool {
	return (!r.HasLo || wire.CompareUTF16(k, r.Lo) >= 0) && (!r.HasHi || wire.CompareUTF16(k, r.Hi) < 0)
}

// cuts reports whether b may split r: a key strictly inside it, so that
// both sides are non-empty ranges.
func (r keyRange) cuts(b string) bool {
	return b != "" && (!r.HasLo || wire.CompareUTF16(b, r.Lo) > 0) && (!r.HasHi || wire.CompareUTF16(b, r.Hi) < 0)
}

// splitRanges cuts the key space into the share's ranges, at most parts of
// them. The space is seen as a grid of the first splitDepth characters over
// chars (len(chars)^splitDepth cells, in key order); share i of n takes the
// cells from (i-1)*M/n to i*M/n, and the cell index is written back as its
// splitDepth-character string to make a bound. Consecutive shares share a
// bound, the first is open below and the last open above, so the n shares
// cover every possible key exactly once, whatever the keys look like.
func splitRanges(chars string, sh share, parts int) ([]keyRange, error) {
	m := uint64(len(chars))
	cells := uint64(1)
	for range splitDepth {
		cells *= m
	}
	if uint64(sh.N) > cells {
		return nil, fmt.Errorf("--segment %s: at most %d shares with these key characters", sh, cells)
	}
	lo := uint64(sh.I-1) * cells / uint64(sh.N)
	hi := uint64(sh.I) * cells / uint64(sh.N)
	if parts < 1 {
		parts = 1
	}
	if uint64(parts) > hi-lo {
		parts = int(hi - lo)
	}
	bound := func(cell uint64) string {
		b := make([]byte, splitDepth)
		for d := splitDepth - 1; d >= 0; d-- {
			b[d] = chars[cell%m]
			cell /= m
		}
		return string(b)
	}
	rs := make([]keyRange, parts)
	for j := range parts {
		a := lo + uint64(j)*(hi-lo)/uint64(parts)
		b := lo + uint64(j+1)*(hi-lo)/uint64(parts)
		rs[j] = keyRange{Lo: bound(a), Hi: bound(b), HasLo: a > 0, HasHi: b < cells}
		if !rs[j].HasLo {
			rs[j].Lo = ""
		}
		if !rs[j].HasHi {
			rs[j].Hi = ""
		}
	}
	return rs, nil
}

// segments turns key ranges on prop into query segments.
func segments(prop query.Property, rs []keyRange) []query.Segment {
	segs := make([]query.Segment, len(rs))
	for i, r := range rs {
		var fs []query.Filter
		if r.HasLo {
			fs = append(fs, prop.Ge(query.String(r.Lo)))
		}
		if r.HasHi {
			fs = append(fs, prop.Lt(query.String(r.Hi)))
		}
		segs[i] = query.Segment{Filter: query.And(fs...)}
	}
	return segs
}
