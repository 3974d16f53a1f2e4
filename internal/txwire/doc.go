// Package txwire knows the wire format of Table service entity group
// transactions (POST .../$batch) as aztables v1.4.1 writes and the service,
// Azurite and Cosmos DB answer them.
//
// Requests: aztables builds the multipart body itself and offers no way to
// see it before it is sent. [Sizer] computes its exact length from the same
// inputs and with the same library calls, so that the 4 MiB limit can be
// checked before any request. Tests compare it with the bytes aztables
// really sends.
//
// Replies: aztables does not parse the multipart reply beyond finding the
// first failure. [Parse] reads every part (CRLF or bare LF line ends, the
// boundary from the Content-Type header or from the body, a missing closing
// delimiter as Cosmos DB sends, and the stray boundary line Azurite writes
// before the status line of a rejected over-limit changeset) and never
// panics on malformed input.
package txwire
