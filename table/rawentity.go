package table

import "encoding/json"

// RawEntity is an entity whose properties stay in the service's own JSON,
// for programs that move entities without looking at their values: copies
// between tables or accounts, backups and their restores. Reading one
// copies its properties' bytes, writing one sends them back, so every
// value keeps its exact EDM type and form without the map of an Entity
// being built and encoded again; Table[RawEntity] works with everything
// Table[T] does (CRUD, ETags, package query and package batch).
//
// Properties is a JSON object of every property but the keys and
// Timestamp, each with its @odata.type annotation where the service wrote
// one, as in
//
//	{"Count@odata.type":"Edm.Int64","Count":"5","Name":"x"}
//
// Reading drops the odata metadata (the ETag goes to Meta). A number
// without an annotation is typed by its form, as Entity reads it (a
// Double when it has a '.' or an exponent, an Int64 beyond Int32's range)
// and gets the annotation that keeps that type: some writers, Azurite
// among them, store an unannotated 1.0 as an Int32 (so does aztables'
// own encoding, for every entity type of a table given to Wrap).
// Writing checks that Properties is such an object (scalar values, valid
// property names, at most 252 properties) and returns a *ValidationError
// before any request otherwise; nil or empty writes an entity with no
// properties. Values are
// not checked against their annotations, and the entity size limit is the
// service's to enforce: a raw entity holds what the service sent, and a
// hand-written one should be checked by whoever wrote it.
type RawEntity struct {
	PartitionKey string
	RowKey       string
	Properties   json.RawMessage
	Meta         // ETag and Timestamp of what was read
}
