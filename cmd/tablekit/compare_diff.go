package main

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/tablekit/tablekit/internal/wire"
	"github.com/tablekit/tablekit/table"
)

// compareKeys orders entities as the service does: PartitionKey, then
// RowKey, by UTF-16 code units.
func compareKeys(a, b *table.Entity) int {
	return compareKeyStrings(a.PartitionKey, a.RowKey, b.PartitionKey, b.RowKey)
}

func compareKeyStrings(apk, ark, bpk, brk string) int {
	if c := wire.CompareUTF16(apk, bpk); c != 0 {
		return c
	}
	return wire.CompareUTF16(ark, brk)
}

// propDiff is one property that differs between two entities of the same
// keys: its value, its EDM type, or whether it is there at all.
type propDiff struct {
	name     string
	from, to any // nil: absent on that side
}

// typeChanged reports a property stored with another EDM type (Int32 vs
// Int64 is a difference, whatever the numbers).
func (d propDiff) typeChanged() bool {
	return d.from != nil && d.to != nil && fmt.Sprintf("%T", d.from) != fmt.Sprintf("%T", d.to)
}

func (d propDiff) String() string {
	return d.name + ": " + valueText(d.from) + " -> " + valueText(d.to)
}

// valueText is a value with its EDM type, cut to a readable length.
func valueText(v any) string {
	if v == nil {
		return "(absent)"
	}
	typ, s, err := formatValue(v)
	if err != nil {
		return fmt.Sprintf("%T", v)
	}
	if len(s) > 40 {
		s = s[:37] + "..."
	}
	return fmt.Sprintf("Edm.%s %q", typ, s)
}

// diffProps lists, by name, the properties of a and b (Timestamp and ETag
// are not properties) that differ.
func diffProps(a, b map[string]any) []propDiff {
	var ds []propDiff
	for k, x := range a {
		y, ok := b[k]
		if !ok {
			ds = append(ds, propDiff{k, x, nil})
		} else if !sameValue(x, y) {
			ds = append(ds, propDiff{k, x, y})
		}
	}
	for k, y := range b {
		if _, ok := a[k]; !ok {
			ds = append(ds, propDiff{k, nil, y})
		}
	}
	slices.SortFunc(ds, func(p, q propDiff) int { return wire.CompareUTF16(p.name, q.name) })
	return ds
}

// sameValue says whether two values are the same EDM type and value. NaN
// equals NaN (it is what the service stores, whatever its bits); other
// doubles are equal only bit for bit, so -0 differs from 0.
func sameValue(x, y any) bool {
	switch xv := x.(type) {
	case []byte:
		yv, ok := y.([]byte)
		return ok && bytes.Equal(xv, yv)
	case time.Time:
		yv, ok := y.(time.Time)
		return ok && xv.Equal(yv)
	case float64:
		yv, ok := y.(float64)
		if !ok {
			return false
		}
		if math.IsNaN(xv) || math.IsNaN(yv) {
			return math.IsNaN(xv) && math.IsNaN(yv)
		}
		return math.Float64bits(xv) == math.Float64bits(yv)
	}
	return x == y
}
