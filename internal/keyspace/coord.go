package keyspace

import (
	"slices"
	"strings"

	"github.com/tablekit/tablekit/internal/wire"
)

// coord places the strings that start with prefix on [0, 1), in the
// service's order, so that the splitter can measure how far apart two keys
// are and name the key at a point between them. Position i after the prefix
// is a digit over the characters the keys seen so far suggest there (see
// newCoord); a character outside them rounds down to the end of the cell
// below it, so the map never reverses the order (it may merge keys into one
// point).
type coord struct {
	prefix string
	pos    []position
}

// position holds the characters a position of the coordinate takes, in
// UTF-16 order, end first when strings end there.
type position struct {
	all cells
	// after: the characters taken after a given character at the position
	// before, where enough keys showed it (the hour's units after a 2,
	// the day's after a 3).
	after map[rune]cells
}

// cells are a position's characters and where each one's cell starts, as
// a fraction of the position's span: a character's cell is as wide as the
// characters that may follow it are many, so that 30 and 31 take as much
// of a month as two other days.
type cells struct {
	chars []rune
	start []float64 // len(chars)+1, from 0 to 1
}

func (p position) cells(prev rune) cells {
	if a, ok := p.after[prev]; ok {
		return a
	}
	return p.all
}

// weigh sets the cells' starts from the characters the next position
// takes after each of them.
func (cs *cells) weigh(next *position) {
	cs.start = make([]float64, len(cs.chars)+1)
	for j, ch := range cs.chars {
		w := 1.0
		if next != nil && ch != end {
			w = float64(len(next.cells(ch).chars))
		}
		cs.start[j+1] = cs.start[j] + w
	}
	total := cs.start[len(cs.chars)]
	for j := range cs.start {
		cs.start[j] /= total
	}
}

// end stands for "the string ends here", below every character.
const end rune = -1

// maxCells keeps the coordinates exact in a float64.
const maxCells = 1 << 50

// maxDepth bounds the positions a coordinate looks at.
const maxDepth = 48

// minAfter is how many different beginnings keys must show before a
// character at a position for the next position to take, after it, only
// the characters they showed: a rule of the keys (hours after a 2 are 20
// to 23), not of the few pages read (minutes 10 to 26 of one hour).
const minAfter = 8

// lone is how many keys must show one letter alone at a position before
// the coordinate takes it as a constant there.
const lone = 100

// before orders runes as the service orders them (UTF-16 code units).
func before(a, b rune) bool {
	if a == end || b == end {
		return a == end && b != end
	}
	return wire.CompareRunes(a, b) < 0
}

// The kinds of characters a position may hold a range of.
const (
	digit = iota
	lower
	upper
	nkinds
)

// firstOf is each kind's first character.
var firstOf = [nkinds]rune{'0', 'a', 'A'}

// kind is the kind of an ASCII digit or letter; -1 for any other character.
func kind(ch rune) int {
	switch {
	case ch >= '0' && ch <= '9':
		return digit
	case ch >= 'a' && ch <= 'z':
		return lower
	case ch >= 'A' && ch <= 'Z':
		return upper
	}
	return -1
}

// seenAt gathers what keys showed at one position: each kind's smallest
// and largest character, the other characters, whether keys ended there.
type seenAt struct {
	n      int             // keys reaching the position, or ending there
	starts map[string]bool // their different beginnings, up to minAfter
	has    [nkinds]bool
	lo, hi [nkinds]rune
	other  map[rune]bool
	ended  bool
}

func (a *seenAt) add(r []rune, i int) {
	a.n++
	if i >= len(r) {
		a.ended = true
		return
	}
	ch := r[i]
	k := kind(ch)
	if k < 0 {
		if a.other == nil {
			a.other = map[rune]bool{}
		}
		a.other[ch] = true
		return
	}
	if !a.has[k] || ch < a.lo[k] {
		a.lo[k] = ch
	}
	a.has[k] = true
	a.hi[k] = max(a.hi[k], ch)
}

// kinds is what newCoord learns of the keys as a whole: the largest
// letter of each case (f for hex), and which letter kinds mix with digits
// at one position (hex, base 36), so that a position showing either may
// hold both.
type kinds struct {
	last [nkinds]rune
	mix  [nkinds]bool
}

// chars turns what a position showed into its characters. Wide, digits
// may take any value and a letter kind its whole range, unless one letter
// stood alone in many keys (the T of a date); narrow, each kind spans only
// the smallest to the largest character seen.
func (a *seenAt) chars(k kinds, narrow bool) []rune {
	var out []rune
	if a.ended {
		out = append(out, end)
	}
	for ch := range a.other {
		out = append(out, ch)
	}
	has, lo, hi := a.has, a.lo, a.hi
	if !narrow {
		widen := has[digit]
		for kd := lower; kd < nkinds; kd++ {
			widen = widen || (k.mix[kd] && has[kd])
		}
		for kd := range nkinds {
			if (widen && (kd == digit || k.mix[kd])) || (kd != digit && has[kd] && (lo[kd] != hi[kd] || a.n < lone)) {
				has[kd], lo[kd], hi[kd] = true, firstOf[kd], k.last[kd]
			}
		}
	}
	for kd := range nkinds {
		for ch := lo[kd]; has[kd] && ch <= hi[kd]; ch++ {
			out = append(out, ch)
		}
	}
	slices.SortFunc(out, func(a, b rune) int {
		switch {
		case before(a, b):
			return -1
		case before(b, a):
			return 1
		}
		return 0
	})
	return out
}

// newCoord builds the coordinate of the keys after prefix from the strings
// seen: each position takes the characters of the kinds seen there (see
// seenAt.chars), and, narrow, after a character seen often enough at the
// position before it, only what was seen after it. Narrow fits dates and
// numbers whose leading digits take few values, once reads have looked all
// over the range; wide is for the first reads.
func newCoord(prefix string, seen []string, narrow bool) *coord {
	c := &coord{prefix: prefix}
	rests := make([][]rune, 0, len(seen))
	for _, s := range seen {
		if strings.HasPrefix(s, prefix) {
			rests = append(rests, []rune(s[len(prefix):]))
		}
	}
	k := kinds{last: [nkinds]rune{'9', 'a', 'A'}}
	var at [maxDepth]seenAt
	var after [maxDepth]map[rune]*seenAt
	depth := 0
	for _, r := range rests {
		for i := 0; i <= min(len(r), maxDepth-1); i++ {
			at[i].add(r, i)
			if narrow && len(at[i].starts) < minAfter {
				if at[i].starts == nil {
					at[i].starts = map[string]bool{}
				}
				at[i].starts[string(r[:i])] = true
			}
			if i == len(r) {
				break
			}
			depth = max(depth, i+1)
			if kd := kind(r[i]); kd > digit {
				k.last[kd] = max(k.last[kd], r[i])
			}
			if narrow && i > 0 {
				if after[i] == nil {
					after[i] = map[rune]*seenAt{}
				}
				a := after[i][r[i-1]]
				if a == nil {
					a = &seenAt{}
					after[i][r[i-1]] = a
				}
				a.add(r, i)
				if len(a.starts) < minAfter {
					if a.starts == nil {
						a.starts = map[string]bool{}
					}
					a.starts[string(r[:i-1])] = true
				}
			}
		}
	}
	for i := range depth {
		for kd := lower; kd < nkinds; kd++ {
			k.mix[kd] = k.mix[kd] || (at[i].has[digit] && at[i].has[kd])
		}
	}
	n := 1.0 // the most cells a string's positions so far may have
	for i := range depth {
		// Narrow only where keys of enough different beginnings showed
		// what the position holds.
		p := position{all: cells{chars: at[i].chars(k, narrow && (i == 0 || len(at[i].starts) >= minAfter))}}
		size := len(p.all.chars)
		for prev, a := range after[i] {
			if len(a.starts) >= minAfter {
				if p.after == nil {
					p.after = map[rune]cells{}
				}
				p.after[prev] = cells{chars: a.chars(k, narrow)}
				size = max(size, len(p.after[prev].chars))
			}
		}
		if n*float64(size) > maxCells {
			break
		}
		n *= float64(size)
		c.pos = append(c.pos, p)
	}
	for i := range c.pos {
		var next *position
		if i+1 < len(c.pos) {
			next = &c.pos[i+1]
		}
		p := &c.pos[i]
		p.all.weigh(next)
		for prev, cs := range p.after {
			cs.weigh(next)
			p.after[prev] = cs
		}
	}
	return c
}

// at is s's point: 0 below the prefix, 1 above every string with it.
func (c *coord) at(s string) float64 {
	if !strings.HasPrefix(s, c.prefix) {
		if wire.CompareUTF16(s, c.prefix) < 0 {
			return 0
		}
		return 1
	}
	rest := []rune(s[len(c.prefix):])
	u, w, prev := 0.0, 1.0, end
	for i, p := range c.pos {
		if i >= len(rest) {
			return u
		}
		cs := p.cells(prev)
		j := -1 // the last character at or below rest[i]
		for k, ch := range cs.chars {
			if ch != end && !before(rest[i], ch) {
				j = k
			}
		}
		if j < 0 { // below every character: just after the strings ending here
			if cs.chars[0] == end {
				return u + w*cs.start[1]
			}
			return u
		}
		if cs.chars[j] != rest[i] {
			return u + w*cs.start[j+1] // between two characters: the end of the lower one's cell
		}
		u += w * cs.start[j]
		w *= cs.start[j+1] - cs.start[j]
		prev = rest[i]
	}
	return u
}

// key is the string at the start of u's cell: at(key(u)) <= u.
func (c *coord) key(u float64) string {
	b := []rune(c.prefix)
	w, prev := 1.0, end
	for _, p := range c.pos {
		cs := p.cells(prev)
		f := u / w
		j, _ := slices.BinarySearch(cs.start, f)
		if j >= len(cs.start) || cs.start[j] > f {
			j--
		}
		j = min(max(j, 0), len(cs.chars)-1)
		if cs.chars[j] == end {
			break
		}
		b = append(b, cs.chars[j])
		u -= w * cs.start[j]
		w *= cs.start[j+1] - cs.start[j]
		prev = cs.chars[j]
	}
	return string(b)
}
