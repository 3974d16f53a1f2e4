package batch

import (
	"context"
	"errors"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"

	"github.com/tablekit/tablekit/internal/core"
	"github.com/tablekit/tablekit/internal/errmap"
	"github.com/tablekit/tablekit/table"
)

// OpResult is the outcome of one operation of a committed transaction.
type OpResult struct {
	// StatusCode is the operation's HTTP status: 204 for writes and
	// deletes (inserts are sent with Prefer: return-no-content).
	StatusCode int
	// ETag and Timestamp of the stored entity; empty for a Delete.
	table.Meta
}

// Transaction is one atomic entity group transaction on a table: up to 100
// operations on one partition that the service applies all or none. Build
// it with Add, Upsert, Update, Delete or Append, then Submit.
type Transaction[T any] struct {
	enc  *encoder[T]
	n    int // operations added, valid or not
	wire []encoded
	lim  txLimits
	err  error // the first broken rule
}

// New starts an empty transaction on t. It does no I/O.
func New[T any](t *table.Table[T]) *Transaction[T] {
	if err := usable(t); err != nil {
		return &Transaction[T]{err: err}
	}
	enc := newEncoder(t, core.NewTxArena(txFirstBlock, txMaxBlock, MaxOps))
	return &Transaction[T]{enc: enc, lim: enc.limits()}
}

// Add inserts e; the transaction fails with tablekit.ErrAlreadyExists if an
// entity with e's keys exists.
func (tx *Transaction[T]) Add(e T) *Transaction[T] {
	return tx.Append(Op[T]{Kind: Add, Entity: e})
}

// Upsert inserts e or merges into / replaces the entity with its keys.
func (tx *Transaction[T]) Upsert(e T, mode table.Mode) *Transaction[T] {
	return tx.Append(Op[T]{Kind: Upsert, Entity: e, Mode: mode})
}

// Update merges e into or replaces the existing entity if its ETag is etag
// (table.AnyETag: whatever it is); on a mismatch the transaction fails with
// tablekit.ErrPreconditionFailed. An empty etag is tablekit.ErrInvalid.
func (tx *Transaction[T]) Update(e T, mode table.Mode, etag azcore.ETag) *Transaction[T] {
	return tx.Append(Op[T]{Kind: Update, Entity: e, Mode: mode, ETag: etag})
}

// Delete removes the entity with these keys if its ETag is etag
// (table.AnyETag: whatever it is). The transaction fails with
// tablekit.ErrNotFound when there is no such entity.
func (tx *Transaction[T]) Delete(partitionKey, rowKey string, etag azcore.ETag) *Transaction[T] {
	return tx.Append(Op[T]{Kind: Delete, PartitionKey: partitionKey, RowKey: rowKey, ETag: etag})
}

// Append adds operations in order.
func (tx *Transaction[T]) Append(ops ...Op[T]) *Transaction[T] {
	for i := range ops {
		tx.append(ops[i])
	}
	return tx
}

func (tx *Transaction[T]) append(op Op[T]) {
	i := tx.n
	tx.n++
	if tx.err == nil && tx.enc == nil {
		tx.err = errZeroTx
	}
	if tx.err != nil {
		return
	}
	fail := func(err error) { tx.err = invalidAt("transaction", i, err) }
	if err := tx.lim.checkCount(); err != nil {
		fail(err)
		return
	}
	enc, err := tx.enc.encode(op, nil)
	if err == nil {
		err = tx.lim.check(&enc)
	}
	if err != nil {
		fail(err)
		return
	}
	tx.lim.add(&enc)
	tx.wire = append(tx.wire, enc)
}

// Len is the number of operations added.
func (tx *Transaction[T]) Len() int { return tx.n }

// Size is the size in bytes of the request body that Submit would send for
// the valid operations added so far; it must stay within the limit of the
// table's backend.
func (tx *Transaction[T]) Size() int { return tx.lim.bodySize() }

// Validate returns the first broken rule as an [*tablekit.ValidationError], or nil if
// Submit would send the transaction.
func (tx *Transaction[T]) Validate() error {
	if tx.err != nil {
		return tx.err
	}
	if tx.n == 0 {
		return errEmpty
	}
	return nil
}

// Submit sends the transaction and returns one OpResult per operation, in
// order; the service applies all or none. A refused operation is a
// *tablekit.ServiceError with its Index; a lost reply, tablekit.ErrMaybeCommitted.
func (tx *Transaction[T]) Submit(ctx context.Context) ([]OpResult, error) {
	if err := tx.Validate(); err != nil {
		return nil, err
	}
	ctx, end := tx.startSubmit(ctx)
	var obs observer
	res, err := send(obs.attach(ctx), tx.enc.t, tx.wire, false, true)
	var b *errmap.Broken
	switch inDoubt, n := obs.doubt(); {
	case err != nil && inDoubt:
		if amb := collision(err, n, nil); amb != nil {
			return end(nil, amb)
		}
	case errors.As(err, &b):
		return end(nil, maybeCommitted(max(n, 1), err))
	}
	return end(res, err)
}
