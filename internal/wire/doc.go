// Package wire holds the facts of the Table service's wire format that more
// than one package needs: the rules for table names, and the characters of
// keys and property names, that both backends share (their lengths are
// each backend's, in internal/backend), Edm.Double's JSON forms (NaN and
// the infinities are strings), OData string literals and $select lists,
// the ETag's timestamp, the OData error body, a JSON scanner, and how a URL
// loses its query (where a SAS signature lives) before it goes into an
// error.
//
// Each fact is written here once so that table, sas, query, batch, codec and
// txwire cannot disagree about it (they did: two table-name checks, two key
// checks counting length in different units, two error-body parsers cutting
// messages at different lengths). The package has no dependencies inside
// the module and reports rule breaks as a [Violation], which each caller
// turns into its own error type.
package wire
