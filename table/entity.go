package table

// Entity is an entity with no Go type of its own: a map of properties whose
// Go types are their EDM types (the package documentation has the table),
// for tables of several kinds of rows.
type Entity struct {
	PartitionKey string
	RowKey       string
	// Properties holds every property but the keys and Timestamp; nil
	// works as empty for writes.
	Properties map[string]any
	Meta       // ETag and Timestamp of what was read
}

// NewEntity returns an entity with these keys and an empty property map.
func NewEntity(partitionKey, rowKey string) Entity {
	return Entity{PartitionKey: partitionKey, RowKey: rowKey, Properties: map[string]any{}}
}
