package main

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"unicode"
	"unicode/utf8"

	"github.com/tablekit/tablekit/internal/wire"
	"github.com/tablekit/tablekit/table"
)

// shape is what a read of a table found: each property's EDM types, the
// entities' sizes, partitions and key shapes, in memory that does not grow
// with the entities read. schema prints one of the whole table; the
// --filter check reads a sample into one.
type shape struct {
	entities int64
	props    map[string]map[string]int64 // name, EDM type: entities
	// sizes counts entities by size in bytes: the median is exact, and
	// there is at most one counter per size up to the largest.
	sizes            map[int]int64
	minSize, maxSize int
	largest          [2]string // the keys of the first entity of maxSize
	parts            partitionTally
	pk, rk           keyShape
}

// entitySize is what schema calls an entity's size: the bytes of its keys
// and of its properties' JSON as the service sends them (annotations
// included; Timestamp and the ETag not). Each backend measures its limit
// otherwise (docs/cosmos.md); this is the size a read moves.
func entitySize(e table.RawEntity) int {
	return len(e.PartitionKey) + len(e.RowKey) + len(e.Properties)
}

// newShape starts a shape; bounds are the PartitionKeys that cut the read
// into segments (see partitionTally), ordered whether the backend returns
// each segment in key order.
func newShape(ordered bool, bounds []string) *shape {
	return &shape{
		props: map[string]map[string]int64{},
		sizes: map[int]int64{},
		parts: partitionTally{ordered: ordered, bounds: bounds, open: make([]partCount, len(bounds)+1), all: map[string]int64{}},
		pk:    keyShape{patterns: map[string]int64{}},
		rk:    keyShape{patterns: map[string]int64{}},
	}
}

// addRaw adds an entity read raw; dyn decodes its properties' types.
func (s *shape) addRaw(dyn *dynTable, e table.RawEntity) error {
	r := rawRow(e)
	props, err := decodeRow(dyn, &r)
	if err != nil {
		return err
	}
	s.add(e.PartitionKey, e.RowKey, props, entitySize(e))
	return nil
}

func (s *shape) add(pk, rk string, props map[string]any, size int) {
	s.entities++
	for name, v := range props {
		typ, _, err := formatValue(v)
		if err != nil {
			continue // a null, which is no value of any type
		}
		m := s.props[name]
		if m == nil {
			m = map[string]int64{}
			s.props[name] = m
		}
		m[typ]++
	}
	s.sizes[size]++
	if s.entities == 1 || size < s.minSize {
		s.minSize = size
	}
	if size > s.maxSize || s.entities == 1 {
		s.maxSize, s.largest = size, [2]string{pk, rk}
	}
	s.parts.add(pk)
	s.pk.add(pk)
	s.rk.add(rk)
}

// median is the size of the ((n+1)/2)th smallest entity.
func (s *shape) median() int {
	sizes := make([]int, 0, len(s.sizes))
	for n := range s.sizes {
		sizes = append(sizes, n)
	}
	slices.Sort(sizes)
	var seen int64
	for _, n := range sizes {
		if seen += s.sizes[n]; seen >= (s.entities+1)/2 {
			return n
		}
	}
	return 0
}

// types is the EDM types a property has in the shape, in edmTypes' order.
func (s *shape) types(name string) []string {
	var out []string
	for _, t := range edmTypes {
		if s.props[name][t] > 0 {
			out = append(out, t)
		}
	}
	return out
}

// topPartitions is how many of the biggest partitions a shape keeps.
const topPartitions = 10

// maxPartitionsHeld bounds the partitions counted one by one when the
// backend returns no key order (Cosmos DB): beyond, the count is a lower
// bound and says so.
const maxPartitionsHeld = 1 << 20

type partCount struct {
	PartitionKey string `json:"partitionKey"`
	Entities     int64  `json:"entities"`
}

// partitionTally counts partitions and keeps the biggest. In key order a
// partition's entities come one after the other within their segment, so
// the tally holds one open partition per segment (found by the segment
// bounds): memory does not grow with the partitions. Without key order it
// counts each partition in a map, up to maxPartitionsHeld.
type partitionTally struct {
	ordered bool
	bounds  []string
	open    []partCount // per segment: the partition being read
	count   int64
	top     []partCount // the biggest closed, biggest first
	all     map[string]int64
	over    bool // unordered, and more than maxPartitionsHeld partitions
}

func (p *partitionTally) add(pk string) {
	if !p.ordered {
		if _, ok := p.all[pk]; ok || len(p.all) < maxPartitionsHeld {
			p.all[pk]++
		} else {
			p.over = true
		}
		return
	}
	i := sort.Search(len(p.bounds), func(i int) bool { return wire.CompareUTF16(p.bounds[i], pk) > 0 })
	o := &p.open[i]
	if o.Entities > 0 && o.PartitionKey == pk {
		o.Entities++
		return
	}
	p.close(*o)
	*o = partCount{pk, 1}
}

func (p *partitionTally) close(c partCount) {
	if c.Entities == 0 {
		return
	}
	p.count++
	i := sort.Search(len(p.top), func(i int) bool { return bigger(c, p.top[i]) })
	if i < topPartitions {
		p.top = slices.Insert(p.top, i, c)[:min(len(p.top)+1, topPartitions)]
	}
}

// bigger orders partitions biggest first, ties in key order.
func bigger(a, b partCount) bool {
	return a.Entities > b.Entities || a.Entities == b.Entities && wire.CompareUTF16(a.PartitionKey, b.PartitionKey) < 0
}

// result is the number of partitions, whether it is exact, and the
// biggest, biggest first (ties in key order).
func (p *partitionTally) result() (int64, bool, []partCount) {
	for _, o := range p.open {
		p.close(o)
	}
	clear(p.open)
	for pk, n := range p.all {
		p.close(partCount{pk, n})
	}
	clear(p.all)
	return p.count, !p.over, p.top
}

// maxPatterns bounds the distinct key patterns a keyShape counts; keys of
// others are counted together.
const maxPatterns = 1000

// keyShape is the lengths of one key (in characters) and the patterns
// they follow.
type keyShape struct {
	minLen, maxLen int
	seen           bool
	patterns       map[string]int64
	other          int64
}

func (k *keyShape) add(key string) {
	n := utf8.RuneCountInString(key)
	if !k.seen || n < k.minLen {
		k.minLen = n
	}
	if !k.seen || n > k.maxLen {
		k.maxLen = n
	}
	k.seen = true
	p := keyPattern(key)
	if _, ok := k.patterns[p]; ok || len(k.patterns) < maxPatterns {
		k.patterns[p]++
	} else {
		k.other++
	}
}

// keyPattern describes a key as a regular expression, by its runs of
// ASCII letters and digits: each run is one class of the kinds it holds
// ([0-9], [a-z], [A-Z], [A-Za-z], [0-9a-z], ...; a-f for letters that
// could be hexadecimal among digits: GUIDs, hashes); any other character
// is itself, escaped.
// "cust-0001" is [a-z]{4}-[0-9]{4}.
func keyPattern(key string) string {
	var out []byte
	rs := []rune(key)
	for i := 0; i < len(rs); {
		r := rs[i]
		if !isAlnum(r) {
			out = appendLiteral(out, r)
			i++
			continue
		}
		j := i
		var digit, lower, upper, hex bool
		hex = true
		for ; j < len(rs) && isAlnum(rs[j]); j++ {
			c := rs[j]
			switch {
			case c >= '0' && c <= '9':
				digit = true
			case c >= 'a' && c <= 'z':
				lower = true
				hex = hex && c <= 'f'
			default:
				upper = true
				hex = hex && c >= 'A' && c <= 'F'
			}
		}
		letters := ""
		switch {
		case lower && upper:
			letters = "A-Za-z"
		case lower && hex && digit:
			letters = "a-f"
		case lower:
			letters = "a-z"
		case upper && hex && digit:
			letters = "A-F"
		case upper:
			letters = "A-Z"
		}
		class := "[" + letters + "]"
		if digit {
			class = "[0-9" + letters + "]"
		}
		out = append(out, class...)
		if n := j - i; n > 1 {
			out = fmt.Appendf(out, "{%d}", n)
		}
		i = j
	}
	return string(out)
}

// isAlnum is an ASCII letter or digit: other letters are themselves in a
// pattern.
func isAlnum(r rune) bool {
	return r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r))
}

// appendLiteral writes r as a regular expression matching it.
func appendLiteral(b []byte, r rune) []byte {
	if r < 0x20 || r == 0x7f {
		return fmt.Appendf(b, `\x%02x`, r)
	}
	return append(b, regexp.QuoteMeta(string(r))...)
}

// top is the key's patterns, most frequent first (ties by pattern).
func (k *keyShape) top(n int) []patternCount {
	out := make([]patternCount, 0, len(k.patterns))
	for p, c := range k.patterns {
		out = append(out, patternCount{p, c})
	}
	slices.SortFunc(out, func(a, b patternCount) int {
		if c := cmp.Compare(b.Entities, a.Entities); c != 0 {
			return c
		}
		return cmp.Compare(a.Pattern, b.Pattern)
	})
	return out[:min(n, len(out))]
}

type patternCount struct {
	Pattern  string `json:"pattern"`
	Entities int64  `json:"entities"`
}
