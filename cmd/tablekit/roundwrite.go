package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/tablekit/tablekit/batch"
	"github.com/tablekit/tablekit/table"
)

// item is one entity to write and where it came from: an input line for
// import (its text kept for --rejects), a position in the scan for copy.
// Import parses lines into ent; copy carries the source's JSON in raw.
type item struct {
	line int64
	ent  table.Entity
	raw  table.RawEntity
	text []byte // the input line, for --rejects (JSON Lines only)
	size int    // estimated bytes, to bound a round's memory
}

// reject is an entity or line that was not written, and why.
type reject struct {
	Line   int64  `json:"line"`
	Reason string `json:"reason"`
	Input  string `json:"input,omitempty"`
}

// round is a slice of the input written before the checkpoint moves past
// it. Rounds are written one after the other, so that the checkpoint only
// ever names a point before which everything committed (or was rejected),
// and a key given twice keeps its last value.
type round struct {
	items   []item
	rejects []reject // found while reading
	next    string   // the position after the round, for the checkpoint
	bytes   int
}

// roundWriter writes rounds with batch.Write, which packs each round's
// partitions into full transactions: the items' ent through t, or their
// raw through rt when rt is set.
type roundWriter struct {
	t    *dynTable
	rt   *table.Table[table.RawEntity]
	kind batch.OpKind
	mode table.Mode
	opts *batch.WriteOptions
	// inDoubt: an add that finds its entity already there, with the same
	// properties, counts as done when it may be this job's own earlier
	// write (a resumed run, or a retry after a lost reply).
	resumed bool
}

// maxPasses bounds the resubmissions of operations held back by a refused
// transaction of their partition.
const maxPasses = 10

// write writes the round's items. It returns how many are stored, the
// rejected ones, and an error when the round could not be completed (the
// context ended, or a transaction was refused for a reason no single
// entity explains, such as a missing table): then the checkpoint must not
// move past it.
func (w *roundWriter) write(ctx context.Context, items []item) (stored int, rejects []reject, err error) {
	if w.rt != nil {
		return writeItems(ctx, w, w.rt, items, func(it *item) table.RawEntity { return it.raw })
	}
	return writeItems(ctx, w, w.t, items, func(it *item) table.Entity { return it.ent })
}

// writeItems is write for either kind of entity, ent picking an item's.
func writeItems[E any](ctx context.Context, w *roundWriter, t *table.Table[E], items []item, ent func(*item) E) (stored int, rejects []reject, err error) {
	pending := items
	for pass := 0; len(pending) > 0; pass++ {
		ops := make([]batch.Op[E], len(pending))
		for i := range pending {
			ops[i] = batch.Op[E]{Kind: w.kind, Entity: ent(&pending[i]), Mode: w.mode}
		}
		sum, werr := batch.Write(ctx, t, ops, w.opts)
		if werr == nil {
			return stored + len(ops), rejects, nil
		}
		if ctx.Err() != nil {
			return stored + sum.Ops, rejects, werr
		}
		why := map[int]error{}
		own := map[int]bool{} // the operation the service or the checks refused
		for _, ch := range sum.Incomplete {
			for _, i := range ch.Ops {
				why[i] = ch.Err
			}
			var oe *batch.OpError[E]
			var ie *batch.InvalidError
			switch {
			case errors.As(ch.Err, &oe) && oe.Index >= 0:
				own[oe.Index] = true
			case errors.As(ch.Err, &ie) && len(ch.Ops) == 1:
				own[ch.Ops[0]] = true
			}
		}
		var again []item
		for i, it := range pending {
			cause := why[i]
			switch {
			case sum.State(i) == batch.Committed:
				stored++
			case errors.Is(cause, table.ErrMaybeCommitted):
				stored++ // a retry found the first attempt's change made
			case own[i] && w.kind == batch.Add && w.rt == nil && errors.Is(cause, table.ErrAlreadyExists) && (w.resumed || pass > 0):
				if same, gerr := w.isOwn(ctx, it.ent); gerr != nil {
					return stored, rejects, gerr
				} else if same {
					stored++
				} else {
					rejects = append(rejects, rejectOf(it, cause))
				}
			case own[i]:
				rejects = append(rejects, rejectOf(it, cause))
			case pass+1 < maxPasses && (cause == nil || errors.Is(cause, batch.ErrNotSent) || sum.State(i) == batch.Unknown):
				again = append(again, it)
			default:
				return stored, rejects, fmt.Errorf("line %d: %w", it.line, cause)
			}
		}
		pending = again
	}
	return stored, rejects, nil
}

// isOwn reads back an entity an add found already there.
func (w *roundWriter) isOwn(ctx context.Context, e table.Entity) (bool, error) {
	got, err := w.t.Get(ctx, e.PartitionKey, e.RowKey, nil)
	if errors.Is(err, table.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return sameProps(got.Properties, e.Properties), nil
}

func rejectOf(it item, err error) reject {
	return reject{Line: it.line, Reason: err.Error(), Input: string(it.text)}
}

// rejectLine is a reject as one JSON line of the --rejects file.
func rejectLine(r reject) []byte {
	b, _ := json.Marshal(r)
	return append(b, '\n')
}
