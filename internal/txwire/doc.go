// Package txwire knows the wire format of Table service entity group
// transactions (POST .../$batch) as aztables v1.4.1 writes and the service,
// Azurite and Cosmos DB answer them.
//
// Requests: [Sizer.AppendPart] and [Body] write the multipart body tablekit
// sends on its own pipeline, byte for byte as aztables v1.4.1 writes it
// except that each entity goes out as tablekit encoded it (aztables
// re-encodes it). For an aztables client tablekit did not build
// (table.Wrap), which writes the body itself and shows it to nobody,
// [Sizer.OpSize] computes its exact length from the same inputs and with
// the same library calls. Either way the backend's body limit is checked
// before any request (package batch, from internal/backend); tests compare
// both with the bytes aztables really sends.
//
// Replies: aztables does not parse the multipart reply beyond finding the
// first failure. [Parse] reads every part (CRLF or bare LF line ends, the
// boundary from the Content-Type header or from the body, a missing closing
// delimiter as Cosmos DB sends, and the stray boundary line Azurite writes
// before the status line of a rejected over-limit changeset) and never
// panics on malformed input.
package txwire
