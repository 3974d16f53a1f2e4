package batch

import "fmt"

// errSameEntityUnknown is why an operation after an Unknown one on the
// same entity is not sent.
var errSameEntityUnknown = fmt.Errorf("%w: an earlier operation on the same entity has an unknown outcome", errNotSent)

// markUnknown records the entities of an Unknown chunk. The partition's
// later chunks are still sent (its other entities do not depend on it),
// but no later operation on these entities: whether it may be sent depends
// on what the Unknown one did, which nobody knows. Sending, say, an upsert
// after an Unknown upsert of the same entity would commit, and the caller's
// resubmission of the Unknown one would then overwrite the newer value;
// not sending keeps each entity's committed operations a prefix of its
// operations, so resubmitting what is not Committed, in order, is right.
// Called with w.mu held, before the chunk's rows are released.
func (p *partition[T]) markUnknown(c *chunk[T]) {
	if p.unknownRows == nil {
		p.unknownRows = map[string]bool{}
	}
	for rk := range c.lim.rows {
		p.unknownRows[rk] = true
	}
}

// dropUnknownRows takes the operations on entities of an Unknown chunk out
// of c, recording them as a NotSent chunk of their own. It returns the
// reason not to send c when none is left. Called with w.mu held.
func (w *writer[T]) dropUnknownRows(p *partition[T], c *chunk[T]) error {
	if len(p.unknownRows) == 0 {
		return nil
	}
	keep := &chunk[T]{id: c.id, pk: c.pk, sealed: true, lim: w.enc.limits()}
	skip := &chunk[T]{id: c.id, pk: c.pk, sealed: true, lim: w.enc.limits()}
	for i := range c.wire {
		to := keep
		if p.unknownRows[c.wire[i].rk] {
			to = skip
		}
		to.add(c.positions[i], c.wire[i])
	}
	switch {
	case len(skip.wire) == 0:
		return nil
	case len(keep.wire) == 0:
		return errSameEntityUnknown
	}
	c.positions, c.wire, c.lim = keep.positions, keep.wire, keep.lim
	w.ledger.chunksFormed++
	w.finishLocked(p, skip, NotSent, errSameEntityUnknown, false)
	return nil
}
