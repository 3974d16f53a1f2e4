package query

import "github.com/tablekit/tablekit/internal/wire"

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
