// Package fastpath hands the wire tablekit's own bytes, so that aztables
// does not decode and re-encode every entity (a map round trip per entity
// costs several times tablekit's whole encode or decode).
//
// tablekit puts a Holder in the context of one aztables call; Policy, which
// table.ClientOptions installs before the retry policy, then swaps bytes:
//
//   - reads (Read, Get): the downloaded body of a 200 response is kept in the
//     Holder and aztables decodes an empty result instead ({"value":[]} or
//     {}); headers, continuation included, flow as before;
//   - inserts: Inserter sends tablekit's bytes itself, through the pipeline
//     aztables built for the client, as AddEntity builds the request (same
//     URL, headers, span and reply handling), so aztables never decodes and
//     re-encodes the entity; the policy passes it on untouched;
//   - other writes (Write): aztables is handed a small placeholder entity
//     and the policy sends Holder.Out in its place;
//   - transactions (Batch): aztables builds a one-operation placeholder body,
//     the policy sends tablekit's multipart body, keeps the 202 reply and
//     gives aztables a one-part reply to parse.
//
// The policy runs before the retry policy (so every attempt sends the same
// bytes, rewound) and before signing: the Table service's Shared Key (Lite)
// signs only x-ms-date and the resource, SAS and bearer tokens sign nothing
// of the body, so a replaced body and Content-Length keep the request valid.
//
// A client without the policy (table.Wrap of an aztables client built
// elsewhere, Options.NoFastPath) never swaps: reads see Holder.Swapped false
// and use aztables' result; inserts go through AddEntity, and writes and
// transactions are only handed placeholders, when tablekit built the
// pipeline. aztables does not export a client's pipeline: Inserter reads it
// from the client's fields, and without them inserts use a placeholder.
// Verified with aztables v1.4.1 and azcore v1.24.0; an upgrade of either
// must re-run the tests (they count swaps, so a path that silently stops
// swapping fails them, and table's tests fail when inserts stop finding
// the pipeline).
package fastpath
