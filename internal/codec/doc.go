// Package codec maps Go structs to Table service entities and back. It is
// the heart of tablekit: every write of packages table and batch is encoded
// here, and every entity read by table and query is decoded here.
//
// A [Plan] is the mapping of one struct type, built once by reflection
// ([For], [PlanFor]) and cached, so that a type that cannot be an entity
// is a [*TypeError] when a table is opened, never a panic or a surprise on
// the thousandth write. Encoding and decoding then only walk the plan.
//
// Encoding writes the service's JSON by hand, with an @odata.type
// annotation wherever the JSON type alone would lose the EDM type (Int64 as
// a string, Double even for 1.0, DateTime with 100 ns, Guid, Binary). It
// checks every service limit first (keys, string and binary sizes, ranges,
// the 1 MiB entity size by the service's own formula) and reports a break as
// a [*ValidationError] naming the property and the rule: a request the
// service would refuse is never sent, and the value is never echoed in the
// message because it may be large or secret.
//
// Decoding reads the flat object the service returns with wire.Scanner
// rather than encoding/json, pairing each value with its annotation. It
// accepts what other writers store (Int32 for an int64 field, a number for
// a double), checks ranges against the Go field, and reports a misfit as a
// [*DecodeError]; it never panics on malformed input.
//
// The error types and sentinels carry the "table:" prefix because package
// table re-exports them: that is where users meet them.
package codec
