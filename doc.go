// Package tablekit is the error model shared by tablekit's packages; the
// library itself is in its subpackages:
//
//   - table: connections (Service), typed CRUD over one table (Table[T]),
//     entity conversion, key helpers;
//   - query: filters, paged and parallel queries, resumable tokens, Split;
//   - batch: entity group transactions and the bulk writer;
//   - retry: the one retry policy, for tablekit and for your own calls;
//   - sas: table and account SAS, stored access policies.
//
// # Errors
//
// Every error matches at most one outcome sentinel with errors.Is, and
// keeps the original error (an *azcore.ResponseError for a service's
// answer) reachable with errors.As:
//
//	if errors.Is(err, tablekit.ErrNotFound) { ... }
//
// ERRORTABLE
package tablekit
