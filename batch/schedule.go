package batch

import (
	"fmt"
	"sync"

	"golang.org/x/sync/errgroup"
)

// scheduler sends the sealed chunks: one worker per partition with chunks
// queued, at most WriteOptions.InFlight at once, and no more than
// WriteOptions.MaxBuffered bytes of operations held.
type scheduler struct {
	workers  errgroup.Group // limited to WriteOptions.InFlight
	cond     *sync.Cond     // on writer.mu; signalled when a chunk finishes
	inflight int            // chunks dispatched and not finished
	buffered int            // bytes of operations in chunks not finished
	stopped  bool           // a failure stopped the writer: nothing more is sent
}

// reserve waits until size more bytes fit under MaxBuffered: for chunks in
// flight to finish or, when none is, after sending the oldest open chunk.
func (w *writer[T]) reserve(size int) {
	w.mu.Lock()
	for w.sched.buffered > 0 && w.sched.buffered+size > w.opts.MaxBuffered && !w.sched.stopped && w.ctx.Err() == nil {
		if w.sched.inflight > 0 {
			w.sched.cond.Wait()
			continue
		}
		// Everything buffered waits in open chunks: send the oldest.
		toStart, ok := w.sealOldest(nil)
		if !ok {
			break
		}
		w.mu.Unlock()
		w.startWorkers(toStart)
		w.mu.Lock()
	}
	w.sched.buffered += size
	w.mu.Unlock()
}

// dispatch queues the sealed chunks at the head of p.pending, in order.
// Called with w.mu held; returns p in toStart when its worker must start.
func (w *writer[T]) dispatch(p *partition[T], toStart []*partition[T]) []*partition[T] {
	for len(p.pending) > 0 && p.pending[0].sealed {
		c := p.pending[0]
		p.pending[0] = nil
		p.pending = p.pending[1:]
		if reason := w.skipReason(p, c); reason != nil {
			w.finishLocked(p, c, NotSent, reason, false)
			continue
		}
		p.queued = append(p.queued, c)
		w.sched.inflight++
		if !p.working {
			p.working = true
			toStart = append(toStart, p)
		}
	}
	return toStart
}

// skipReason says why c must not be sent, or nil. Called with w.mu held.
func (w *writer[T]) skipReason(p *partition[T], c *chunk[T]) error {
	switch {
	case w.ctx.Err() != nil:
		return errorf("%w: %w", errNotSent, w.ctx.Err())
	case p.halted && c.id > p.lastToSend:
		return fmt.Errorf("%w: an earlier transaction of the partition did not commit", errNotSent)
	case w.sched.stopped:
		return fmt.Errorf("%w: the writer stopped after a failure", errNotSent)
	}
	return nil
}

func (w *writer[T]) startWorkers(toStart []*partition[T]) {
	for _, p := range toStart {
		w.sched.workers.Go(func() error {
			w.work(p)
			return nil
		})
	}
}

// work runs the queued chunks of one partition, one after the other.
func (w *writer[T]) work(p *partition[T]) {
	for {
		w.mu.Lock()
		if len(p.queued) == 0 {
			p.working = false
			w.mu.Unlock()
			return
		}
		c := p.queued[0]
		p.queued[0] = nil
		p.queued = p.queued[1:]
		reason := w.skipReason(p, c)
		if reason == nil {
			reason = w.dropUnknownRows(p, c)
		}
		w.mu.Unlock()

		state, err := NotSent, reason
		if reason == nil {
			state, err = w.tracedSubmit(c)
		}
		w.progressMu.Lock()
		w.mu.Lock()
		w.finishLocked(p, c, state, err, true)
		snap := w.ledger.progress()
		w.mu.Unlock()
		if w.opts.Progress != nil {
			w.opts.Progress(snap)
		}
		w.progressMu.Unlock()
	}
}

// finishLocked records the end of a chunk and stops what must not follow a
// failure. dispatched says whether it was counted in flight. Called with
// w.mu held.
func (w *writer[T]) finishLocked(p *partition[T], c *chunk[T], state State, err error, dispatched bool) {
	defer w.sched.cond.Broadcast()
	if dispatched {
		w.sched.inflight--
	}
	w.sched.buffered -= c.lim.opBytes
	c.state, c.err = state, err
	w.ledger.record(c)
	if state == Unknown {
		p.markUnknown(c) // the partition goes on without these entities
	}
	// Its parts are sent no more: their room in the arena goes to later
	// operations. Errors keep only an index.
	for i := range c.wire {
		c.wire[i].part.Release()
	}
	c.wire, c.lim.rows = nil, nil
	if state != Failed {
		return
	}
	if !p.halted || c.id < p.lastToSend {
		// Later chunks of the partition must not run.
		p.halted, p.lastToSend = true, c.id
	}
	if !w.opts.ContinueOnError {
		w.sched.stopped = true
	}
}
