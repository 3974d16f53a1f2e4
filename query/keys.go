package query

import "github.com/tablekit/tablekit/internal/codec"

// emptyKey is the ErrInvalidKey of an empty PartitionKey or RowKey, the one
// rule every tablekit call applies (see codec.RuleKeyEmpty for why).
func emptyKey(pk, rk string) error {
	if err := codec.CheckKey("PartitionKey", pk); err != nil && pk == "" {
		return err
	}
	return codec.CheckKey("RowKey", rk)
}
