package table

import "encoding/json"

// RawEntity is an entity whose properties stay in the service's own JSON,
// for programs that move entities without looking at them (copies,
// backups): every value keeps its exact EDM type and form.
type RawEntity struct {
	PartitionKey string
	RowKey       string
	Properties   json.RawMessage
	Meta         // ETag and Timestamp of what was read
}
