package table

import (
	"encoding/json"

	"github.com/tablekit/tablekit/internal/codec"
)

// RawEntity is an entity whose properties stay in the service's own JSON,
// for programs that move entities without looking at them (copies,
// backups): every value keeps its exact EDM type and form.
type RawEntity struct {
	PartitionKey string
	RowKey       string
	Properties   json.RawMessage
	Meta         // ETag and Timestamp of what was read
}

// AppendJSON appends e to dst as one JSON object, the form
// [Table.AppendJSON] writes (the keys, the properties, then Timestamp when
// set), without checking anything again: it is for an entity a read
// returned, whose properties the read checked and left in the service's
// form, so that a program writing what it reads (an export, a backup's
// JSON lines) copies each entity's bytes once. Properties must be a JSON
// object (or nil); for an entity built by hand, Table.AppendJSON checks
// every rule a write would.
func (e RawEntity) AppendJSON(dst []byte) []byte {
	return codec.AppendRawLine(dst, e.PartitionKey, e.RowKey, e.Properties, e.Timestamp)
}
