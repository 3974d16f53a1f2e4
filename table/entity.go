package table

// Entity is an entity with no Go type of its own: its properties are a map
// whose values carry their EDM type in their Go type, so that
// Table[Entity] reads and writes any entity, including rows of several
// kinds in one table, with everything Table[T] does (CRUD, ETags, package
// query and package batch).
//
// The Go type of each value is its EDM type, both ways:
//
//	string     Edm.String
//	bool       Edm.Boolean
//	int32      Edm.Int32
//	int64      Edm.Int64
//	float64    Edm.Double (NaN and ±Inf too)
//	time.Time  Edm.DateTime (UTC, 100 ns)
//	GUID       Edm.Guid
//	[]byte     Edm.Binary
//
// Reading yields exactly these types, so writing an entity back never
// changes a stored type; a value outside its annotated type's form or
// range is a *tablekit.DecodeError, never a value of another type. A JSON number
// without an annotation is read by its form, as the service and Azurite
// write them: an integer is an int32 (an int64 beyond Int32's range), a
// number with a '.' or an exponent is a float64 (Azurite writes a Double
// 1.0 unannotated). Any other Go type (int,
// float32, uint64, a struct, nil) is a *tablekit.ValidationError naming the property,
// before any request, as is every rule a typed entity obeys.
type Entity struct {
	_            [0]GUID // tells the codec which GUID type values have
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
