package batch

import (
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/tablekit/tablekit"
)

// Progress is a snapshot of a running Write.
type Progress struct {
	// Ops is the number of operations committed; OpsTotal the number of
	// operations to write: the length of the slice for Write, the number
	// read so far for WriteSeq (final when Final is set).
	Ops, OpsTotal int
	// Chunks is the number of transactions committed; ChunksTotal the
	// number formed so far (final when Final is set).
	Chunks, ChunksTotal int
	// Failed is the number of transactions that did not commit: refused,
	// in doubt, or not sent.
	Failed int
	// Retries is the number of retries so far, all transactions together.
	Retries int
	// Throttled is how many of those retries followed throttling: a failure
	// matching tablekit.ErrThrottled, of the whole request or of an operation
	// inside its reply.
	Throttled int
	// Final is set on the last call: the input is read and every
	// transaction has finished.
	Final bool
}

// State is what happened to an operation (or a chunk) of a Write.
type State uint8

const (
	// NotSent: never sent, because the writer stopped first, an earlier
	// transaction of its partition was refused, or an earlier operation on
	// the same entity is Unknown; also the State of operations never read.
	NotSent State = iota
	// Committed: the transaction holding it committed.
	Committed
	// Failed: the transaction holding it was refused (or the operation was
	// invalid and never sent); nothing in it was written.
	Failed
	// Unknown: the transaction may or may not have been committed
	// (tablekit.ErrMaybeCommitted, a lost reply, or the context ended). Read
	// the entities to find out: the transaction applied all or nothing.
	Unknown
)

// String returns the State's name, e.g. "Committed".
func (s State) String() string {
	switch s {
	case NotSent:
		return "NotSent"
	case Committed:
		return "Committed"
	case Failed:
		return "Failed"
	case Unknown:
		return "Unknown"
	}
	return fmt.Sprintf("State(%d)", uint8(s))
}

// Chunk describes a transaction of a Write that did not commit.
type Chunk struct {
	// PartitionKey is the partition of every operation in the chunk.
	PartitionKey string
	// Ops are the positions in the input of the chunk's operations, in the
	// order they were sent (or would have been).
	Ops []int
	// State is Failed, Unknown or NotSent.
	State State
	// Err is why: a *tablekit.ServiceError, a *tablekit.ValidationError, a
	// *tablekit.MaybeCommittedError (tablekit.ErrMaybeCommitted), a transport
	// or context error, or, for NotSent, an error matching errNotSent.
	Err error
}

// Summary reports a Write: atomicity is per transaction only, so some
// transactions may have committed and others not. Every operation's fate is
// State(i); Incomplete has the transactions that did not commit and why.
type Summary struct {
	// Ops and Chunks are the operations and transactions committed.
	Ops, Chunks int
	// Read is the number of operations read from the input; for WriteSeq,
	// the operations at positions Read and after were not read.
	Read int
	// Retries is the number of retries, all transactions together.
	Retries int
	// Throttled is how many of the retries followed throttling (see
	// Progress.Throttled).
	Throttled int
	// Duration is the time Write took.
	Duration time.Duration
	// Incomplete lists the transactions that did not commit, in the order
	// they were formed; nil when everything was committed.
	Incomplete []Chunk

	states []State
}

// State returns what happened to the operation at position i of the input.
func (s Summary) State(i int) State {
	if i < 0 || i >= len(s.states) {
		return NotSent
	}
	return s.states[i]
}

// ledger records what became of every operation and chunk of a Write, for
// Progress and the Summary.
type ledger[T any] struct {
	states   []State // by input position
	fromSeq  bool    // WriteSeq: states and opsTotal grow as operations are read
	opsTotal int
	read     int
	// inputUnread: the writer stopped before the end of the input.
	inputUnread bool

	opsCommitted    int
	chunksFormed    int
	chunksCommitted int
	chunksFailed    int         // not committed, invalid operations left out
	incomplete      []*chunk[T] // chunks that did not commit
	firstErr        error       // of the first chunk sent that did not commit (or invalid operation)
	retries         atomic.Int64
	throttled       atomic.Int64 // retries after throttling
}

// record counts a finished chunk. Called with writer.mu held.
func (l *ledger[T]) record(c *chunk[T]) {
	for _, i := range c.positions {
		l.states[i] = c.state
	}
	if c.state == Committed {
		l.chunksCommitted++
		l.opsCommitted += len(c.positions)
		return
	}
	l.incomplete = append(l.incomplete, c)
	if !c.invalid {
		l.chunksFailed++
	}
	if c.state != NotSent && l.firstErr == nil {
		l.firstErr = c.err
	}
}

// progress is the snapshot Progress gets. Called with writer.mu held.
func (l *ledger[T]) progress() Progress {
	return Progress{
		Ops: l.opsCommitted, OpsTotal: l.opsTotal,
		Chunks: l.chunksCommitted, ChunksTotal: l.chunksFormed,
		Failed: l.chunksFailed, Retries: int(l.retries.Load()),
		Throttled: int(l.throttled.Load()), Final: false,
	}
}

// summary makes the final Progress call and Write's results.
func (w *writer[T]) summary() (Summary, error) {
	w.progressMu.Lock()
	w.mu.Lock()
	l := &w.ledger
	snap := l.progress()
	snap.Final = true
	s := Summary{
		Ops: l.opsCommitted, Chunks: l.chunksCommitted, Read: l.read,
		Retries: int(l.retries.Load()), Throttled: int(l.throttled.Load()), Duration: time.Since(w.start),
		states: l.states,
	}
	slices.SortFunc(l.incomplete, func(a, b *chunk[T]) int { return a.id - b.id })
	for _, c := range l.incomplete {
		s.Incomplete = append(s.Incomplete, Chunk{PartitionKey: c.pk, Ops: c.positions, State: c.state, Err: c.err})
	}
	firstErr := l.firstErr
	total := l.opsTotal
	inputUnread := l.inputUnread
	w.mu.Unlock()
	if w.opts.Progress != nil {
		w.opts.Progress(snap)
	}
	w.progressMu.Unlock()

	if s.Ops == total && len(s.Incomplete) == 0 && !inputUnread {
		return s, nil
	}
	ctxErr := w.ctx.Err()
	switch {
	case firstErr != nil && ctxErr != nil:
		return s, errorf("%w: %d of %d operations committed: %w (and then: %w)", tablekit.ErrIncomplete, s.Ops, total, firstErr, ctxErr)
	case firstErr != nil:
		return s, errorf("%w: %d of %d operations committed: %w", tablekit.ErrIncomplete, s.Ops, total, firstErr)
	case ctxErr != nil:
		return s, errorf("%w: %d of %d operations committed: %w", tablekit.ErrIncomplete, s.Ops, total, ctxErr)
	}
	return s, errorf("%w: %d of %d operations committed", tablekit.ErrIncomplete, s.Ops, total)
}
