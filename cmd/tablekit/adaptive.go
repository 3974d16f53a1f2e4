package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/tablekit/tablekit/internal/wire"
	"github.com/tablekit/tablekit/query"
	"github.com/tablekit/tablekit/table"
)

// The static grid of --key-chars places a share's bounds without looking
// at the data, which is what lets n machines agree on their shares. Within
// a share, though, a fixed grid fails the commonest keys: "p00".."p49",
// "customer-000123" or "2024-05-..." share a prefix and all fall into one
// of its ranges, making a parallel run sequential. So the --parallel split
// of a share follows the data: a few keys-only probes ($top=1) find the
// first key, the prefix every key of the share has in common, and which
// parts of the space after it hold keys; the bounds go between them.
// Coverage does not depend on what the probes find: the bounds are any
// increasing keys inside the share, so the segments tile it exactly.

// extraSplit keeps the bounds in the checkpoint: a resumed run must scan
// the same segments, since the token holds a position per segment.
const extraSplit = "split-bounds"

// probeCells is the most cells of the space after the common prefix that
// one round of probes looks into. On the emulator every probe costs a pass
// over the table (about a quarter of a page's work), so the whole
// discovery is kept near a dozen requests.
const probeCells = 8

// maxPrefixProbe bounds the common prefix the discovery looks for (in
// characters): longer ones cost a probe more per doubling and are rare.
const maxPrefixProbe = 256

// prober answers "the first key in [lo, hi)" (hi "" is open), with the
// scope of the scan (its partition and prefix, not --filter: probes are
// key seeks, cheap on the service, while a filter on other properties
// could make one read far).
type prober func(ctx context.Context, lo, hi string) (string, bool, error)

// newProber probes prop's keys of table name through svc.
func newProber(svc *table.Service, name string, prop query.Property, scope query.Filter) (prober, error) {
	t, err := table.New[keyEntity](svc, name)
	if err != nil {
		return nil, err
	}
	q := query.New(t).Select().PageSize(1).Limit(1)
	return func(ctx context.Context, lo, hi string) (string, bool, error) {
		fs := []query.Filter{scope, prop.Ge(query.String(lo))}
		if hi != "" {
			fs = append(fs, prop.Lt(query.String(hi)))
		}
		for k, err := range q.Where(query.And(fs...)).All(ctx) {
			if err != nil {
				return "", false, err
			}
			if prop == query.RowKey {
				return k.RowKey, true, nil
			}
			return k.PartitionKey, true, nil
		}
		return "", false, nil
	}, nil
}

// adaptiveBounds returns the increasing bounds strictly inside r that cut
// it into about target segments, each likely to hold keys. inFlight bounds
// the probes in flight.
func adaptiveBounds(ctx context.Context, probe prober, r keyRange, chars string, target, inFlight int) ([]string, error) {
	hi := ""
	if r.HasHi {
		hi = r.Hi
	}
	first, ok, err := probe(ctx, r.Lo, hi)
	if err != nil || !ok {
		return nil, err // an empty share is one segment
	}
	below := func(s string) bool { return !r.HasHi || wire.CompareUTF16(s, r.Hi) < 0 }
	seen := []string{first}

	// The common prefix: the longest f[:d] that no key of the share lacks,
	// i.e. no key at or after succ(f[:d]). Monotone in d: binary search.
	fr := []rune(first)
	exists := func(d int) (bool, error) {
		s, ok := successor(string(fr[:d]))
		if !ok || !below(s) {
			return false, nil
		}
		k, found, err := probe(ctx, s, hi)
		if found {
			seen = append(seen, k)
		}
		return found, err
	}
	// exists(lo) is false (every key starts with ""); up is past the
	// depths looked at, as if true.
	lo, up := 0, min(len(fr), maxPrefixProbe)+1
	for up-lo > 1 {
		mid := (lo + up) / 2
		ok, err := exists(mid)
		if err != nil {
			return nil, err
		}
		if ok {
			up = mid
		} else {
			lo = mid
		}
	}
	prefix := string(fr[:lo])
	// end closes the keys with the prefix ("" is open).
	end, ok := successor(prefix)
	if !ok || !below(end) {
		end = hi
	}

	g := newGrid(prefix, seen, chars, len(fr)-lo)
	// One round of probes: the first key of each cell after first's.
	start := g.num(first)
	cells := min(probeCells, g.size-start)
	type cell struct {
		lo     int64 // grid number where the cell starts
		first  string
		filled bool
	}
	cs := make([]cell, 0, cells)
	cs = append(cs, cell{lo: start, first: first, filled: true})
	for j := int64(1); j < cells; j++ {
		cs = append(cs, cell{lo: start + j*(g.size-start)/cells})
	}
	var mu sync.Mutex
	eg, ectx := errgroup.WithContext(ctx)
	eg.SetLimit(max(1, inFlight))
	for j := 1; j < len(cs); j++ {
		lo := g.str(cs[j].lo)
		up := end
		if j+1 < len(cs) {
			up = g.str(cs[j+1].lo)
		}
		if wire.CompareUTF16(lo, first) <= 0 || !below(lo) {
			continue
		}
		eg.Go(func() error {
			k, found, err := probe(ectx, lo, up)
			mu.Lock()
			cs[j].first, cs[j].filled = k, found
			mu.Unlock()
			return err
		})
	}
	if err := eg.Wait(); err != nil {
		return nil, err
	}
	var filled []int
	for j, c := range cs {
		if c.filled {
			filled = append(filled, j)
		}
	}
	per := max(1, int64(target/len(filled)))
	if len(filled) == 1 && len(seen) == 1 {
		// Nothing but the first key was seen: likely a few keys, where
		// a split would only add empty segments.
		per = 1
	}
	var bounds []string
	for x, j := range filled {
		c := cs[j]
		if x > 0 {
			bounds = append(bounds, c.first)
		}
		stop := g.size
		if j+1 < len(cs) {
			stop = cs[j+1].lo
		}
		from := g.num(c.first)
		for i := int64(1); i < per; i++ {
			if n := from + i*(stop-from)/per; n > from && n < stop {
				if b := g.str(n); wire.CompareUTF16(b, c.first) > 0 {
					bounds = append(bounds, b)
				}
			}
		}
	}
	return cleanBounds(bounds, r), nil
}

// cleanBounds sorts the bounds in the service's key order, drops repeats
// and any not strictly inside r: what is left makes non-empty, disjoint
// ranges that tile r.
func cleanBounds(bs []string, r keyRange) []string {
	slices.SortFunc(bs, wire.CompareUTF16)
	out := bs[:0]
	for _, b := range bs {
		if !r.cuts(b) {
			continue
		}
		if len(out) > 0 && out[len(out)-1] == b {
			continue
		}
		out = append(out, b)
	}
	return out
}

// boundsRanges cuts r at bounds (increasing, strictly inside r).
func boundsRanges(r keyRange, bounds []string) []keyRange {
	rs := make([]keyRange, 0, len(bounds)+1)
	cur := keyRange{Lo: r.Lo, HasLo: r.HasLo}
	for _, b := range bounds {
		cur.Hi, cur.HasHi = b, true
		rs = append(rs, cur)
		cur = keyRange{Lo: b, HasLo: true}
	}
	cur.Hi, cur.HasHi = r.Hi, r.HasHi
	return append(rs, cur)
}

// checkBounds refuses saved bounds that do not tile r (a checkpoint edited
// or of another share), which would skip or repeat keys.
func checkBounds(bounds []string, r keyRange) error {
	for i, b := range bounds {
		if !r.cuts(b) || (i > 0 && wire.CompareUTF16(bounds[i-1], b) >= 0) {
			return fmt.Errorf("checkpoint: the saved segment bounds do not fit this share; start again without the checkpoint")
		}
	}
	return nil
}

func encodeBounds(bs []string) string {
	b, _ := json.Marshal(bs)
	return string(b)
}

// successor is the least string after every string that starts with p, in
// the service's (UTF-16) order; false when there is none.
func successor(p string) (string, bool) {
	rs := []rune(p)
	for i := len(rs) - 1; i >= 0; i-- {
		if n, ok := nextUTF16(rs[i]); ok {
			return string(rs[:i]) + string(n), true
		}
	}
	return "", false
}

// nextUTF16 is the character after r in UTF-16 code unit order, where
// characters above U+FFFF (surrogate pairs, D800-DFFF) sort between
// U+D7FF and U+E000.
func nextUTF16(r rune) (rune, bool) {
	switch {
	case r == 0xD7FF:
		return 0x10000, true
	case r == 0x10FFFF:
		return 0xE000, true
	case r == 0xFFFF:
		return 0, false
	}
	return r + 1, true
}

// grid numbers the keys after prefix by their next few characters, each
// position over the characters it is expected to hold: the families
// (digits, upper or lower case letters) of the characters seen there in the
// keys found so far, or the --key-chars set. Keys of other shapes still
// fall into some cell; only balance depends on the guess.
type grid struct {
	prefix string
	pos    []string // the characters of each position, ascending
	size   int64
}

// gridDepth bounds the positions of the grid: 4 positions of digits are
// 10,000 cells, enough to cut a share's occupied part finely.
const gridDepth = 4

func newGrid(prefix string, seen []string, chars string, rest int) grid {
	depth := min(max(rest, 1), gridDepth)
	if rest == 0 {
		depth = 2 // the other keys are the first one and more characters
	}
	g := grid{prefix: prefix, size: 1}
	n := len([]rune(prefix))
	// Keys that mix digits with letters of one case (hex, base 36) may have
	// either at any position: a position that showed only digits so far
	// takes the letters too.
	all := map[string]bool{}
	for _, k := range seen {
		for _, c := range []rune(k)[n:] {
			all[family(c, chars)] = true
		}
	}
	digits, mixed := family('0', chars), ""
	if len(all) == 2 && all[digits] {
		for f := range all {
			if f != digits && f != chars {
				mixed = f
			}
		}
	}
	for i := range depth {
		fam := map[string]bool{}
		for _, k := range seen {
			kr := []rune(k)
			if n+i < len(kr) {
				fam[family(kr[n+i], chars)] = true
			}
		}
		if mixed != "" && fam[digits] {
			fam[mixed] = true
		}
		set := chars
		if len(fam) > 0 && !fam[chars] {
			var b strings.Builder
			for f := range fam {
				b.WriteString(f)
			}
			set = sortedSet(b.String())
		}
		g.pos = append(g.pos, set)
		g.size *= int64(len(set))
	}
	return g
}

// family is the characters of c's kind within chars: its digits, upper or
// lower case letters; chars itself for any other character.
func family(c rune, chars string) string {
	var lo, hi rune
	switch {
	case c >= '0' && c <= '9':
		lo, hi = '0', '9'
	case c >= 'A' && c <= 'Z':
		lo, hi = 'A', 'Z'
	case c >= 'a' && c <= 'z':
		lo, hi = 'a', 'z'
	default:
		return chars
	}
	var b strings.Builder
	for i := 0; i < len(chars); i++ {
		if rune(chars[i]) >= lo && rune(chars[i]) <= hi {
			b.WriteByte(chars[i])
		}
	}
	if b.Len() < 2 {
		return chars
	}
	return b.String()
}

func sortedSet(s string) string {
	b := []byte(s)
	slices.Sort(b)
	return string(slices.Compact(b))
}

// num is k's cell: each position's character rounded down to the grid's.
func (g grid) num(k string) int64 {
	kr := []rune(strings.TrimPrefix(k, g.prefix))
	var n int64
	for i, set := range g.pos {
		d := 0
		if i < len(kr) {
			for j := 0; j < len(set); j++ {
				if rune(set[j]) <= kr[i] {
					d = j
				}
			}
		}
		n = n*int64(len(set)) + int64(d)
	}
	return n
}

// str is the key where cell n starts.
func (g grid) str(n int64) string {
	b := make([]byte, len(g.pos))
	for i := len(g.pos) - 1; i >= 0; i-- {
		set := g.pos[i]
		b[i] = set[n%int64(len(set))]
		n /= int64(len(set))
	}
	return g.prefix + string(b)
}
