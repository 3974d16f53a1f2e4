package core

import (
	"bytes"
	"context"
	"net/http"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit/internal/opdesc"
	"github.com/tablekit/tablekit/internal/txwire"
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
	// Arena, when not nil, holds the operation's part (on the pipeline
	// path), instead of an allocation of its own.
	Arena *TxArena
}

// TxArena holds the parts of the operations that one goroutine encodes,
// written one after the other into shared blocks: one allocation for many
// parts instead of one each, and no copy of a part. A part is never written
// again once made, so the parts of a block may be read (sent) while later
// parts are written after them. A block stays in memory as long as any of
// its parts does, so a caller whose parts outlive one another picks small
// blocks.
type TxArena struct {
	blk       []byte
	next, max int // the size of the next block, and the largest
	// most is the most parts the arena will hold (0: no bound); with the
	// parts and bytes so far, it sizes the next block for those left.
	most, parts, bytes int
}

// NewTxArena returns an arena whose blocks start at first bytes and double
// up to max (a part larger than a block gets a block of its size). With
// most > 0, the arena holds at most that many parts (a transaction's
// limit), and a block after the first is no larger than the parts left
// need at the size of those so far: a transaction's parts then take about
// their own size instead of up to twice it.
func NewTxArena(first, max, most int) *TxArena {
	return &TxArena{next: first, max: max, most: most}
}

// put writes op's part, as AppendPart writes it, into the arena and
// returns it, capped so that no append to it can reach the next part.
func (a *TxArena) put(s *txwire.Sizer, op txwire.Op, entity []byte) ([]byte, error) {
	if need := txwire.PartRoom(len(entity)); cap(a.blk)-len(a.blk) < need {
		size := a.next
		if a.most > 0 && a.parts > 0 {
			// The parts left at the average size so far, and room for
			// the last one's headroom.
			size = min(size, a.bytes/a.parts*max(a.most-a.parts, 1)+need)
		}
		a.blk = make([]byte, 0, max(size, need))
		a.next = min(2*a.next, max(a.max, a.next))
	}
	start := len(a.blk)
	b, err := s.AppendPart(a.blk, op, entity)
	if err != nil {
		return nil, err
	}
	if cap(b) != cap(a.blk) {
		// Longer than PartRoom (a long request URL): AppendPart moved it
		// to a new array, with the block's bytes before it. Kept alone.
		return bytes.Clone(b[start:]), nil
	}
	a.blk = b
	a.parts++
	a.bytes += len(b) - start
	return b[start:len(b):len(b)], nil
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
// op.Entity, so the caller may reuse its bytes; it may be in op.Arena. Its errors are
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
