// Package codec maps Go structs to Table service entities and back. It is
// the heart of tablekit: every write of packages table and batch is encoded
// here, and every entity read by table and query is decoded here.
//
// A [Plan] is the mapping of one struct type, built once by reflection
// ([For], [PlanFor]) and cached, so that a type that cannot be an entity
// is a *tablekit.ValidationError when a table is opened, never a panic or a surprise on
// the thousandth write. Encoding and decoding then only walk the plan.
//
// Encoding writes the service's JSON by hand, with an @odata.type
// annotation wherever the JSON type alone would lose the EDM type (Int64 as
// a string, Double even for 1.0 and as a string for NaN and the
// infinities, DateTime with 100 ns, Guid, Binary). It
// checks every limit of the backend written to first, from its profile
// (internal/backend): key lengths, string and binary sizes, property names
// and count, the entity's size as the backend measures it (Table Storage's
// formula, Cosmos DB's JSON), and the EDM ranges; it reports a break as a
// [*tablekit.ValidationError] naming the property and the rule: a request the
// service would refuse is never sent, and the value is never echoed in the
// message because it may be large or secret. Where no table is known yet (a
// conversion between entity types), backend.Lenient refuses only what no
// backend takes.
//
// Decoding reads the flat object the service returns with wire.Scanner
// rather than encoding/json, pairing each value with its annotation. A
// stored value goes only into a field of its own EDM type or a lossless
// widening of it, so that a read-modify-write never changes the type of the
// data; a misfit is a [*tablekit.DecodeError] naming the property, the stored type
// and the field type. An annotation names a value's type and never changes
// it: each EDM type has its JSON form and range (edm.go), and a value outside
// them is a [*tablekit.DecodeError] when read and, in a table.RawEntity, a
// [*tablekit.ValidationError] when written. It never panics on malformed input. The
// accepted conversions (docs/entities.md "Typed entities" has the same table):
//
//	stored         field
//	Edm.String     string, TextUnmarshaler, "json" field; time, GUID, []byte only with "parse"
//	Edm.Boolean    bool
//	Edm.Int32      any integer (range checked), float64, float32 (exact values)
//	Edm.Int64      int64, uint32, uint, uint64 (range checked), never an Int32-mapped field
//	Edm.Double     float64, float32 (exact values; NaN and ±Inf in every spelling, also unannotated)
//	Edm.DateTime   time.Time, aztables.EDMDateTime
//	Edm.Guid       GUID, aztables.EDMGUID
//	Edm.Binary     []byte, aztables.EDMBinary
//	null           any field, set to zero
//
// Under minimal metadata the service annotates DateTime, Guid, Binary and
// Int64, so an unannotated string is a real Edm.String however it looks.
//
// A raw entity (table.RawEntity) keeps its properties in the service's
// JSON, every value checked as it is read (raw.go; rawfast.go reads the
// service's own form in one pass). A program that is done with each entity
// at once gives the properties' buffer back for the next read to fill
// (ReleaseRawProps, rawprops.go): tablekit export's heap then stays the
// size of its read-ahead.
//
// The error types and sentinels carry the "table:" prefix because package
// table re-exports them: that is where users meet them.
package codec
