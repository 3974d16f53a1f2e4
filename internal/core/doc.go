// Package core is the state behind a table.Table and the one data path
// that packages table, query and batch send their requests on.
//
// A [Table] carries what those packages need of a table: its name, the
// codec plan of its entity type, the aztables client of its management
// calls (and of users' own aztables code), the tracer, the pool size, and
// the path its data requests take. table.Table[T] is a defined type over
// Table, so query and batch reach it by a plain conversion,
// (*core.Table)(t), while users, who cannot import an internal package,
// cannot; a defined type inherits no methods, so none of these is part of
// table's API.
//
// Every data-plane request (point get, insert, upsert and merge, update,
// delete, query page, $batch) goes through Table's methods, which take one
// of two paths, chosen when the Table is made:
//
//   - the pipeline path (pipeline.go), for tables of a table.Service or a
//     table SAS URL: core builds each request with the bytes tablekit
//     encoded, as aztables v1.4.1 builds the same request (method, URL and
//     its escaping, headers), sends it on the azcore pipeline that package
//     table built for the service ([Conn]), and hands the reply's body to
//     the caller's decoder;
//   - the aztables path (aztables.go), for table.Wrap over an aztables
//     client the user built, whose pipeline tablekit cannot reach: the
//     client's public methods, which decode and re-encode every entity
//     (several times the client CPU of the pipeline path).
//
// The consumers have one code path each; only the two implementations of
// the data path differ.
package core
