package core

import (
	"bytes"
	"context"
	"net/http"
	"sync"
	"sync/atomic"

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

	// A reusing arena's block being written, and its blocks whose parts
	// were all released, for later parts (NewReusingTxArena).
	reuse bool
	keep  int // the most released blocks kept
	cur   *txBlock
	mu    sync.Mutex
	free  []*txBlock
}

// txBlock is a block of a reusing arena. refs counts its parts not yet
// released, and one more while the arena writes into it: at zero nothing
// reads the block any more.
type txBlock struct {
	buf   []byte
	refs  atomic.Int32
	arena *TxArena
}

// NewReusingTxArena returns an arena of blocks of size bytes that takes a
// block back, for later parts, once every part written in it was released
// (TxPart.Release), and keeps up to keep of them: a bulk write then writes
// its operations into the blocks of those done instead of a new one,
// allocated and cleared, for every dozen operations (two fifths of the
// bytes a bulk write allocated). A block holds operations of many
// transactions when partitions interleave, and is released with the last
// of them: keep is about the blocks the write may hold at once.
func NewReusingTxArena(size, keep int) *TxArena {
	return &TxArena{next: size, max: size, reuse: true, keep: keep}
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
// returns it, capped so that no append to it can reach the next part, with
// the reusing arena's block it holds a reference to (nil for none).
func (a *TxArena) put(s *txwire.Sizer, op txwire.Op, entity []byte) ([]byte, *txBlock, error) {
	if need := txwire.PartRoom(len(entity)); cap(a.blk)-len(a.blk) < need {
		size := a.next
		if a.most > 0 && a.parts > 0 {
			// The parts left at the average size so far, and room for
			// the last one's headroom.
			size = min(size, a.bytes/a.parts*max(a.most-a.parts, 1)+need)
		}
		if a.reuse {
			a.take(max(size, need))
		} else {
			a.blk = make([]byte, 0, max(size, need))
		}
		a.next = min(2*a.next, max(a.max, a.next))
	}
	start := len(a.blk)
	b, err := s.AppendPart(a.blk, op, entity)
	if err != nil {
		return nil, nil, err
	}
	if cap(b) != cap(a.blk) {
		// Longer than PartRoom (a long request URL): AppendPart moved it
		// to a new array, with the block's bytes before it. Kept alone.
		return bytes.Clone(b[start:]), nil, nil
	}
	a.blk = b
	a.parts++
	a.bytes += len(b) - start
	if a.cur != nil {
		a.cur.refs.Add(1)
	}
	return b[start:len(b):len(b)], a.cur, nil
}

// take makes a block of at least size bytes the one written: a released
// one when there is one, else a new one. The block written before is
// released by the arena.
func (a *TxArena) take(size int) {
	if a.cur != nil {
		a.cur.release()
	}
	a.mu.Lock()
	var b *txBlock
	if n := len(a.free); n > 0 && size <= a.max {
		b, a.free = a.free[n-1], a.free[:n-1]
	}
	a.mu.Unlock()
	if b == nil {
		b = &txBlock{buf: make([]byte, 0, size), arena: a}
	}
	b.refs.Store(1)
	a.cur, a.blk = b, b.buf[:0]
}

// release drops a reference to b; the last one gives b back to its arena,
// unless it is larger than the arena's blocks (a part of its own).
func (b *txBlock) release() {
	if b.refs.Add(-1) != 0 || cap(b.buf) != b.arena.max {
		return
	}
	a := b.arena
	a.mu.Lock()
	if len(a.free) < a.keep {
		a.free = append(a.free, b)
	}
	a.mu.Unlock()
}

// TxPart is an operation ready to be submitted: its part of the $batch
// body, or the action aztables encodes (the aztables path).
type TxPart struct {
	part   []byte
	action *aztables.TransactionAction // kept apart: a pipeline part has none
	size   int
	blk    *txBlock // the reusing arena's block that holds part
}

// Size is the number of bytes the operation adds to the $batch body. On
// the aztables path it is an upper bound (see txwire.FallbackEndpoint).
func (p TxPart) Size() int { return p.size }

// Release gives the part's room back to its arena, when the arena reuses
// blocks (NewReusingTxArena), for later parts: the caller is done with the
// part (Submit copies it into the request, so it may be released once the
// last Submit that sends it has returned), and releases it once.
func (p TxPart) Release() {
	if p.blk != nil {
		p.blk.release()
	}
}

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
