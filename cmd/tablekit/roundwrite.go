package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/tablekit/tablekit"
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
	text []byte // the input line (a CSV row: all its lines), for --rejects
	size int    // estimated bytes, to bound a round's memory
	// inDoubt: a transaction holding this item may have committed (its
	// reply was lost), so an add finding the entity may find its own.
	inDoubt bool
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
	// resumed: an add that finds its entity already there, with the same
	// properties, counts as done, since it may be the killed run's write
	// (item.inDoubt says the same after a lost reply).
	resumed bool
	// keepExisting (--mode add-missing): an add that finds its entity
	// already there leaves it as it is and counts it in existing, instead
	// of rejecting it.
	keepExisting bool
	existing     int64
}

// maxStalls bounds the resubmissions of a round that settle nothing: no
// operation committed, refused or found already there.
const maxStalls = 10

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
// A transaction refused because of one operation wrote nothing; it is sent
// again without that operation, which is rejected, and for adds without
// every other entity of the transaction found already there (one read).
func writeItems[E any](ctx context.Context, w *roundWriter, t *table.Table[E], items []item, ent func(*item) E) (stored int, rejects []reject, err error) {
	pending := items
	for stalls := 0; len(pending) > 0; {
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
		refused := map[int]error{} // the operation the service or the checks refused, and why
		without := map[int]bool{}  // rolled back because of another operation: send again
		settled := map[int]bool{}  // by a look at what is stored
		before := stored + len(rejects) + int(w.existing)
		for _, ch := range sum.Incomplete {
			for _, i := range ch.Ops {
				why[i] = ch.Err
			}
			var se *tablekit.ServiceError
			var ie *tablekit.ValidationError
			switch {
			case w.kind == batch.Add && w.rt == nil && (errors.Is(ch.Err, tablekit.ErrMaybeCommitted) ||
				errors.As(ch.Err, &se) && se.Index >= 0 && errors.Is(ch.Err, tablekit.ErrAlreadyExists)):
				n, rjs, again, err := w.settleAdds(ctx, pending, ch)
				if err != nil {
					return stored, rejects, err
				}
				stored += n
				rejects = append(rejects, rjs...)
				for _, i := range ch.Ops {
					settled[i], without[i] = !again[i], again[i]
				}
			case errors.As(ch.Err, &se) && se.Index >= 0 && entityRefusal(ch.Err):
				refused[se.Index] = errors.New(strings.TrimSpace(fmt.Sprintf("%d %s", se.StatusCode, se.Code)) + ": " + se.Message)
				for _, i := range ch.Ops {
					without[i] = i != se.Index
				}
			case errors.As(ch.Err, &ie) && len(ch.Ops) == 1:
				refused[ch.Ops[0]] = ch.Err
			}
		}
		var again []item
		var stallCause error
		for i, it := range pending {
			cause := why[i]
			switch {
			case settled[i]:
			case sum.State(i) == batch.Committed:
				stored++
			case cause == nil || sum.State(i) == batch.NotSent || without[i] || sum.State(i) == batch.Unknown:
				// Unknown: an upsert sent again ends the same either way.
				it.inDoubt = it.inDoubt || sum.State(i) == batch.Unknown
				if stallCause == nil {
					stallCause = cmp.Or(cause, werr)
				}
				again = append(again, it)
			case refused[i] != nil:
				rejects = append(rejects, rejectOf(it, refused[i]))
			default:
				return stored, rejects, fmt.Errorf("line %d: %w", it.line, cause)
			}
		}
		if stored+len(rejects)+int(w.existing) == before {
			if stalls++; stalls >= maxStalls {
				return stored, rejects, fmt.Errorf("line %d: not written after %d attempts: %w", again[0].line, maxStalls, stallCause)
			}
		}
		pending = again
	}
	return stored, rejects, nil
}

// entityRefusal says whether the service refused an operation for what its
// entity is (it exists, a value is out of bounds, ...), so that the other
// operations of its transaction can go without it; a missing table or a
// refused credential concerns them all.
func entityRefusal(err error) bool {
	var se *tablekit.ServiceError
	badRequest := errors.As(err, &se) && se.StatusCode >= 400 && se.StatusCode < 500 && errors.Is(err, tablekit.ErrService)
	return badRequest || errors.Is(err, tablekit.ErrAlreadyExists) ||
		errors.Is(err, tablekit.ErrTooLarge) || errors.Is(err, tablekit.ErrNotFound) ||
		errors.Is(err, tablekit.ErrPreconditionFailed)
}

func rejectOf(it item, err error) reject {
	return reject{Line: it.line, Reason: err.Error(), Input: string(it.text)}
}

// rejectLine is a reject as one JSON line of the --rejects file.
func rejectLine(r reject) []byte {
	b, _ := json.Marshal(r)
	return append(b, '\n')
}
