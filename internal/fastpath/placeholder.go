package fastpath

import "encoding/json"

// unswapped is a property the service refuses (an Int32 that is no
// number), so a placeholder that ever reached it in place of the real
// entity could not be stored: the write fails with 400 instead.
const unswapped = `,"TablekitUnswapped@odata.type":"Edm.Int32","TablekitUnswapped":"tablekit fast path: body not swapped"}`

// Placeholder is the entity handed to aztables for a swapped write: the
// real keys (aztables builds the URL from them) and nothing storable.
func Placeholder(partitionKey, rowKey string) []byte {
	pk, _ := json.Marshal(partitionKey) // a string always marshals
	rk, _ := json.Marshal(rowKey)
	b := make([]byte, 0, 32+len(pk)+len(rk)+len(unswapped))
	b = append(b, `{"PartitionKey":`...)
	b = append(b, pk...)
	b = append(b, `,"RowKey":`...)
	b = append(b, rk...)
	return append(b, unswapped...)
}
