package query

import (
	"github.com/tablekit/tablekit/internal/backend"
	"github.com/tablekit/tablekit/internal/core"
	"github.com/tablekit/tablekit/internal/wire"
	"github.com/tablekit/tablekit/table"
)

// keyPair is an entity's position in the table's order.
type keyPair struct{ pk, rk string }

// compareKeys orders entities as the service returns them: by PartitionKey,
// then RowKey.
func compareKeys(a, b keyPair) int {
	if c := wire.CompareUTF16(a.pk, b.pk); c != 0 {
		return c
	}
	return wire.CompareUTF16(a.rk, b.rk)
}

// keyOrder reports whether t's backend returns entities in key order, so
// that a position in the middle of a page can skip by key.
func keyOrder[T any](t *table.Table[T]) bool {
	h := (*core.Table)(t)
	return h.Usable() && h.Profile().KeyOrder
}

// backendName names t's backend in errors.
func backendName[T any](t *table.Table[T]) string {
	h := (*core.Table)(t)
	if !h.Usable() || h.Profile().Kind == backend.Auto {
		return "a table from table.Wrap, whose backend tablekit cannot see,"
	}
	return h.Profile().Kind.String()
}
