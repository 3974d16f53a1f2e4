package keyspace

import (
	"fmt"

	"github.com/tablekit/tablekit/internal/wire"
)

// Range is the keys k with Lo <= k < Hi of the split property, compared as
// the service compares them (UTF-16 code units). Lo "" is open below; After
// leaves Lo itself out (Lo < k), which a read uses to continue after a key;
// HasHi false is open above.
type Range struct {
	Lo    string
	After bool
	Hi    string
	HasHi bool
}

// Contains reports whether k is in r.
func (r Range) Contains(k string) bool {
	c := wire.CompareUTF16(k, r.Lo)
	return (c > 0 || (c == 0 && !r.After)) && r.below(k)
}

// below reports whether k is under r's upper end.
func (r Range) below(k string) bool { return !r.HasHi || wire.CompareUTF16(k, r.Hi) < 0 }

// Cuts reports whether b may cut r: a key strictly after its lower end and
// below its upper one, so that both sides are ranges that may hold keys.
func (r Range) Cuts(b string) bool { return wire.CompareUTF16(b, r.Lo) > 0 && r.below(b) }

// Tiles cuts r at bounds, which must increase strictly inside r (see
// CheckBounds): the ranges cover r exactly once.
func Tiles(r Range, bounds []string) []Range {
	rs := make([]Range, 0, len(bounds)+1)
	cur := Range{Lo: r.Lo, After: r.After}
	for _, b := range bounds {
		cur.Hi, cur.HasHi = b, true
		rs = append(rs, cur)
		cur = Range{Lo: b}
	}
	cur.Hi, cur.HasHi = r.Hi, r.HasHi
	return append(rs, cur)
}

// CheckBounds reports bounds that do not increase strictly inside r, which
// would make Tiles skip or repeat keys.
func CheckBounds(bounds []string, r Range) error {
	for i, b := range bounds {
		if i > 0 && wire.CompareUTF16(bounds[i-1], b) >= 0 {
			return fmt.Errorf("bounds must increase: %q then %q", bounds[i-1], b)
		}
		if !r.Cuts(b) {
			return fmt.Errorf("bound %q is not inside the range", b)
		}
	}
	return nil
}
