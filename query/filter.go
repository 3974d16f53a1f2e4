package query

import (
	"strings"
	"unicode/utf8"

	"github.com/tablekit/tablekit/internal/backend"
	"github.com/tablekit/tablekit/internal/errmap"
	"github.com/tablekit/tablekit/internal/wire"
)

// MaxComparisons is the service's limit on discrete comparisons in one
// $filter. Build refuses longer filters instead of letting the service
// answer 400 (Azurite does not enforce it).
const MaxComparisons = 15

// Filter is an injection-safe OData $filter expression built from typed
// parts; it is an immutable value, and the zero Filter matches every entity.
// A filter from invalid parts keeps its first error for Build and the query.
type Filter struct {
	n   *node
	err error
}

type op uint8

const (
	opCmp op = iota + 1
	opAnd
	opOr
	opNot
	opRaw
)

// node is one immutable expression; nodes are shared between filters and
// never modified after construction.
type node struct {
	op   op
	prop Property // opCmp
	cmp  string   // opCmp: eq, ne, gt, ge, lt, le
	val  Value    // opCmp
	kids []*node  // opAnd, opOr (2 or more), opNot (1)
	raw  string   // opRaw
	nraw int      // opRaw: comparisons counted in raw
}

func errFilter(err error) Filter { return Filter{err: err} }

// Err returns the first error in the filter's parts, or nil. It matches
// tablekit.ErrInvalid.
func (f Filter) Err() error { return f.err }

// Build returns the $filter text ("" for the zero Filter), which plain
// aztables code can take as ListEntitiesOptions.Filter, or the first error in
// its parts, or an error for more than MaxComparisons comparisons.
func (f Filter) Build() (string, error) {
	if f.err != nil {
		return "", f.err
	}
	if f.n == nil {
		return "", nil
	}
	if n := f.n.comparisons(); n > MaxComparisons {
		return "", errmap.Invalidf("query", "filter", "%d comparisons, the service allows at most %d in one filter", n, MaxComparisons)
	}
	var b strings.Builder
	f.n.render(&b, false)
	return b.String(), nil
}

// String returns the filter text for logs and messages. For an invalid
// filter it returns a description of the error that no service accepts as a
// filter; use Build to get the error itself.
func (f Filter) String() string {
	if f.err != nil {
		return "!(" + f.err.Error() + ")"
	}
	if f.n == nil {
		return ""
	}
	var b strings.Builder
	f.n.render(&b, false)
	return b.String()
}

func (n *node) render(b *strings.Builder, nested bool) {
	switch n.op {
	case opCmp:
		b.WriteString(string(n.prop))
		b.WriteByte(' ')
		b.WriteString(n.cmp)
		b.WriteByte(' ')
		b.WriteString(n.val.lit)
	case opAnd, opOr:
		if nested {
			b.WriteByte('(')
		}
		sep := " and "
		if n.op == opOr {
			sep = " or "
		}
		for i, k := range n.kids {
			if i > 0 {
				b.WriteString(sep)
			}
			k.render(b, true)
		}
		if nested {
			b.WriteByte(')')
		}
	case opNot:
		b.WriteString("not (")
		n.kids[0].render(b, false)
		b.WriteByte(')')
	case opRaw:
		if nested {
			b.WriteByte('(')
		}
		b.WriteString(n.raw)
		if nested {
			b.WriteByte(')')
		}
	}
}

func (n *node) comparisons() int {
	switch n.op {
	case opCmp:
		return 1
	case opRaw:
		return n.nraw
	}
	c := 0
	for _, k := range n.kids {
		c += k.comparisons()
	}
	return c
}

// properties calls fn for every property the filter's comparisons name.
func (n *node) properties(fn func(Property)) {
	if n == nil {
		return
	}
	if n.op == opCmp {
		fn(n.prop)
	}
	for _, k := range n.kids {
		k.properties(fn)
	}
}

// And matches entities that match every filter. Zero filters are ignored
// (they match everything); And() is the zero Filter. The first error among
// the parts is kept.
func And(filters ...Filter) Filter { return combine(opAnd, filters) }

// Or matches entities that match any of the filters. A zero Filter among
// them makes the result the zero Filter; the first error among the parts is
// kept.
func Or(filters ...Filter) Filter { return combine(opOr, filters) }

func combine(o op, filters []Filter) Filter {
	var kids []*node
	for _, f := range filters {
		if f.err != nil {
			return errFilter(f.err)
		}
	}
	for _, f := range filters {
		if f.n == nil {
			if o == opOr {
				return Filter{}
			}
			continue
		}
		if f.n.op == o {
			kids = append(kids, f.n.kids...) // flatten: a and (b and c) is a and b and c
		} else {
			kids = append(kids, f.n)
		}
	}
	switch len(kids) {
	case 0:
		return Filter{}
	case 1:
		return Filter{n: kids[0]}
	}
	return Filter{n: &node{op: o, kids: kids}}
}

// Not matches entities that f does not match. Not of the zero Filter (which
// matches everything) is an error: a query that can match nothing is a bug.
func Not(f Filter) Filter {
	if f.err != nil {
		return f
	}
	if f.n == nil {
		return errFilter(errmap.Invalid("query", "filter", "Not of the zero Filter would match nothing"))
	}
	return Filter{n: &node{op: opNot, kids: []*node{f.n}}}
}

// Raw uses odata as written: the one escape hatch, so it must never contain
// an unescaped user value. It checks only that quotes are closed and
// parentheses balanced; its scope counts as a table scan.
func Raw(odata string) Filter {
	if strings.TrimSpace(odata) == "" {
		return errFilter(errmap.Invalid("query", "filter", "Raw filter is empty (use the zero Filter to match everything)"))
	}
	if !utf8.ValidString(odata) {
		return errFilter(errmap.Invalid("query", "filter", "Raw filter is not valid UTF-8"))
	}
	n, err := scanRaw(odata)
	if err != nil {
		return errFilter(err)
	}
	return Filter{n: &node{op: opRaw, raw: odata, nraw: n}}
}

// scanRaw checks quotes and parentheses and counts comparison operators
// outside string literals.
func scanRaw(s string) (int, error) {
	depth, count := 0, 0
	inString := false
	word := func(i int) string {
		j := i
		for j < len(s) && (s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z') {
			j++
		}
		return s[i:j]
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if inString {
			if c == '\'' {
				if i+1 < len(s) && s[i+1] == '\'' {
					i++
					continue
				}
				inString = false
			}
			continue
		}
		switch {
		case c == '\'':
			inString = true
		case c == '(':
			depth++
		case c == ')':
			depth--
			if depth < 0 {
				return 0, errmap.Invalid("query", "filter", "Raw filter has an unbalanced ')'")
			}
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			w := word(i)
			if i == 0 || !isWordByte(s[i-1]) {
				switch strings.ToLower(w) {
				case "eq", "ne", "gt", "ge", "lt", "le":
					count++
				}
			}
			i += len(w) - 1
		}
	}
	if inString {
		return 0, errmap.Invalid("query", "filter", "Raw filter has an unterminated string literal")
	}
	if depth != 0 {
		return 0, errmap.Invalid("query", "filter", "Raw filter has an unbalanced '('")
	}
	return count, nil
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// Property names an entity property in a filter: PartitionKey, RowKey,
// Timestamp, or any valid property name. An invalid name makes every filter
// built from it invalid.
type Property string

// The system properties every entity has.
const (
	PartitionKey Property = "PartitionKey"
	RowKey       Property = "RowKey"
	Timestamp    Property = "Timestamp"
)

var odataKeywords = map[string]bool{
	"and": true, "or": true, "not": true, "eq": true, "ne": true, "gt": true,
	"ge": true, "lt": true, "le": true, "true": true, "false": true, "null": true,
}

// check applies the name rules (wire.CheckPropertyName, the system
// properties allowed) and the longest name a backend takes: a filter knows
// no table, and backend.Lenient's limit is every backend's.
func (p Property) check() error {
	name := string(p)
	if !wire.IsSystemProperty(name) {
		if bad := wire.CheckPropertyName(name); bad != nil {
			return errmap.Invalidf("query", "filter", "%s", bad)
		}
	}
	if max := backend.Lenient().MaxPropertyName; len(name) > max {
		return errmap.Invalidf("query", "filter", "property name of %d bytes, at most %d", len(name), max)
	}
	if odataKeywords[strings.ToLower(name)] {
		return errmap.Invalidf("query", "filter", "property name %q is an OData keyword and cannot be used in a filter", name)
	}
	return nil
}

func (p Property) compare(cmp string, v Value) Filter {
	if err := p.check(); err != nil {
		return errFilter(err)
	}
	if v.err != nil {
		return errFilter(v.err)
	}
	if v.kind == kindNone {
		return errFilter(errmap.Invalidf("query", "filter", "%s %s: zero query.Value (use a constructor such as query.String)", p, cmp))
	}
	switch p {
	case PartitionKey, RowKey:
		if v.kind != kindString {
			return errFilter(errmap.Invalidf("query", "filter", "%s is a string; compared with %s", p, v.kind))
		}
	case Timestamp:
		if v.kind != kindDateTime {
			return errFilter(errmap.Invalidf("query", "filter", "Timestamp is an Edm.DateTime; compared with %s", v.kind))
		}
	}
	return Filter{n: &node{op: opCmp, prop: p, cmp: cmp, val: v}}
}

// Eq matches entities whose property equals v (and that have the property).
func (p Property) Eq(v Value) Filter { return p.compare("eq", v) }

// Ne matches entities whose property differs from v. On the service an
// entity without the property does not match either.
func (p Property) Ne(v Value) Filter { return p.compare("ne", v) }

// Gt matches entities whose property is greater than v.
func (p Property) Gt(v Value) Filter { return p.compare("gt", v) }

// Ge matches entities whose property is greater than or equal to v.
func (p Property) Ge(v Value) Filter { return p.compare("ge", v) }

// Lt matches entities whose property is less than v.
func (p Property) Lt(v Value) Filter { return p.compare("lt", v) }

// Le matches entities whose property is less than or equal to v.
func (p Property) Le(v Value) Filter { return p.compare("le", v) }

// HasPrefix matches string values that start with prefix, written as the
// range the service can seek on: p ge 'prefix' and p lt 'next' (or the
// open range p ge 'prefix' when no next exists); on PartitionKey, a range.
func (p Property) HasPrefix(prefix string) Filter {
	lo := p.Ge(String(prefix))
	if lo.err != nil {
		return lo
	}
	next, ok := wire.PrefixEnd(prefix)
	if !ok {
		return lo
	}
	return And(lo, p.Lt(String(next)))
}

// Partition matches the entities of one partition: PartitionKey eq pk. It is
// the cheapest query after a point read.
// An empty key is tablekit.ErrInvalid, as everywhere in tablekit.
func Partition(pk string) Filter {
	if pk == "" {
		return errFilter(emptyKey(pk, "r"))
	}
	return PartitionKey.Eq(String(pk))
}

// Point matches the one entity with these keys. A query whose whole filter
// is a Point runs as a point read (GET by key), not as a query.
func Point(pk, rk string) Filter {
	if pk == "" || rk == "" {
		return errFilter(emptyKey(pk, rk))
	}
	return And(PartitionKey.Eq(String(pk)), RowKey.Eq(String(rk)))
}
