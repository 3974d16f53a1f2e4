package core

import (
	"context"
	"net/http"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit/internal/opdesc"
)

// TxOp is one operation of an entity group transaction.
type TxOp struct {
	Type aztables.TransactionType
	// PartitionKey and RowKey address the entity.
	PartitionKey, RowKey string
	// IfMatch is the operation's If-Match; nil for none.
	IfMatch *azcore.ETag
	// Entity is the entity's JSON, keys included; unused by a Delete.
	Entity []byte
}

// TxPart is an operation ready to be submitted: its part of the $batch
// body, or the action aztables encodes (the aztables path).
type TxPart struct {
	part   []byte
	action *aztables.TransactionAction // kept apart: a pipeline part has none
	size   int
}

// Size is the number of bytes the operation adds to the $batch body. On
// the aztables path it is an upper bound (see txwire.FallbackEndpoint).
func (p TxPart) Size() int { return p.size }

// EncodeOp encodes op for Submit. The part keeps no reference to
// op.Entity, so the caller may reuse its bytes. Its errors are
// *tablekit.ValidationError: an entity that is no JSON object, or keys
// that make no request URL.
func (t *Table) EncodeOp(op TxOp) (TxPart, error) { return t.data.encode(op) }

// Submit sends a transaction of parts, in order, and returns the reply
// with its body for the caller to read: a 202 on the service's answer to
// the transaction (whose parts say whether it committed), or the failure
// of the whole request. d.SendOnce makes it a single attempt, for a caller
// that retries the transaction itself; on the aztables path the client's
// own retry policy decides (see retry.Do).
func (t *Table) Submit(ctx context.Context, d opdesc.Desc, parts []TxPart) (*http.Response, error) {
	return t.data.submit(ctx, d, parts)
}
