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
// Reading drops the odata metadata (the ETag goes to Meta) and puts each
// annotation just before its property, as the service writes them (other
// writers, aztables' own decoding among them, put it after). A number
// without an annotation is typed by its form, as Entity reads it (a
// Double when it has a '.' or an exponent, an Int64 beyond Int32's range)
// and gets the annotation that keeps that type: some writers, Azurite
// among them, store an unannotated 1.0 as an Int32 (so does aztables'
// own encoding, for every entity type of a table given to Wrap).
// Every value must be in its annotated type's JSON form and range (an
// annotation names a type, it never changes one): reading a misfit is a
// *tablekit.DecodeError, writing one a *tablekit.ValidationError, both naming the property,
// the type and what is wrong. Writing also checks that
// Properties is an object of scalar values with valid property names (and
// none the backend reserves), no more than the backend allows, before any
// request; nil or empty writes an entity with no properties. Cosmos DB's
// entity size (JSON bytes) is checked too; Table Storage's, by its formula
// of each value's stored size, is the service's to enforce: a raw entity
// holds what the service sent, and a hand-written one should be checked by
// whoever wrote it.
type RawEntity struct {
	PartitionKey string
	RowKey       string
	Properties   json.RawMessage
	Meta         // ETag and Timestamp of what was read
}
