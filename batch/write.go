package batch

import (
	"context"
	"errors"
	"iter"
	"sync"
	"time"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/internal/core"
	"github.com/tablekit/tablekit/retry"
	"github.com/tablekit/tablekit/table"
)

// Defaults of WriteOptions.
const (
	// DefaultInFlight is the number of transactions Write keeps in flight: 4,
	// where measurements put most of the gain of parallel transactions.
	DefaultInFlight = 4
	// DefaultMaxBuffered bounds the encoded operations Write holds: 64 MiB,
	// sixteen full transactions.
	DefaultMaxBuffered = 64 << 20
)

// errNotSent is wrapped by the error of a chunk that was never sent
// (State NotSent): the writer stopped, the context ended, or an earlier
// chunk of the same partition did not commit.
var errNotSent = errors.New("batch: not sent")

// WriteOptions tune Write and WriteSeq. nil and zero fields mean the
// documented defaults; Write never modifies them.
type WriteOptions struct {
	// InFlight is the number of transactions in flight at once, each on a
	// different partition. Default DefaultInFlight (4); size the client's
	// connection pool (table.Options.PoolSize) to at least this.
	InFlight int

	// Retry is the retry policy of each transaction, the only retry layer for
	// Write's requests; nil means retry.Default(). It also retries retryable
	// failures inside a 202 reply, and its retries are counted in Summary.
	Retry *retry.Policy

	// Progress, when set, is called as transactions finish and once more at
	// the end, with Final set. Calls never overlap; keep it short, since a
	// slow callback slows the writer.
	Progress func(Progress)

	// ContinueOnError keeps writing the other partitions after a transaction
	// is refused; by default the first refusal stops the writer. A refused
	// partition's later transactions are never sent.
	ContinueOnError bool

	// Reorder lets operations on different entities of one partition commit
	// out of input order, so that large entities pack into fuller
	// transactions; operations on the same entity keep their order.
	Reorder bool

	// MaxBuffered bounds the bytes of encoded operations held at once; the
	// input is read no faster. Default DefaultMaxBuffered (64 MiB); for
	// WriteSeq a larger bound packs interleaved partitions better.
	MaxBuffered int
}

// Write writes any number of operations, on any partitions, in as few
// transactions as the limits allow, with bounded parallelism and retries.
// A non-nil error matches tablekit.ErrIncomplete; the Summary says the rest.
func Write[T any](ctx context.Context, t *table.Table[T], ops []Op[T], o *WriteOptions) (Summary, error) {
	if err := usable(t); err != nil {
		return Summary{}, err
	}
	ctx, end := startWrite(ctx, t, spanWrite)
	w := newWriter(ctx, t, o)
	w.ledger.states = make([]State, len(ops))
	w.ledger.opsTotal = len(ops)
	groups := groupByPartition(w.enc, ops)
	w.run(func(yield func(int, Op[T], *opKeys) bool) {
		for _, g := range groups {
			for j, i := range g.positions {
				if !yield(i, ops[i], &g.keys[j]) {
					return
				}
			}
			// The partition is complete: close its transactions now rather
			// than holding them until the end.
			w.closePartition(g.pk)
		}
	})
	return end(w.summary())
}

// WriteSeq is Write for operations read once, as needed, from an iterator,
// numbered by their position in it. Memory is bounded by
// WriteOptions.MaxBuffered; sort or group the input by PartitionKey.
func WriteSeq[T any](ctx context.Context, t *table.Table[T], ops iter.Seq[Op[T]], o *WriteOptions) (Summary, error) {
	if err := usable(t); err != nil {
		return Summary{}, err
	}
	if ops == nil {
		ops = func(func(Op[T]) bool) {}
	}
	ctx, end := startWrite(ctx, t, spanWriteSeq)
	w := newWriter(ctx, t, o)
	w.ledger.fromSeq = true
	w.run(func(yield func(int, Op[T], *opKeys) bool) {
		i := 0
		for op := range ops {
			if !yield(i, op, nil) {
				return
			}
			i++
		}
	})
	return end(w.summary())
}

// writer is the state of one Write. mu guards the packer, the scheduler,
// the ledger and the partitions together: a chunk moves between them in
// one step.
type writer[T any] struct {
	ctx    context.Context
	enc    *encoder[T]
	policy retry.Policy // WriteOptions.Retry, counting retries in the ledger
	opts   WriteOptions // defaults resolved
	start  time.Time

	mu     sync.Mutex
	packer packer[T] // forms chunks (pack.go)
	sched  scheduler // sends them (schedule.go)
	ledger ledger[T] // records what became of them (summary.go)

	progressMu sync.Mutex // serialises Progress calls
}

func newWriter[T any](ctx context.Context, t *table.Table[T], o *WriteOptions) *writer[T] {
	w := &writer[T]{ctx: ctx, start: time.Now()}
	if o != nil {
		w.opts = *o
	}
	if w.opts.InFlight <= 0 {
		w.opts.InFlight = DefaultInFlight
	}
	if w.opts.MaxBuffered <= 0 {
		w.opts.MaxBuffered = DefaultMaxBuffered
	}
	w.enc = newEncoder(t, core.NewReusingTxArena(writeBlock, w.opts.MaxBuffered/writeBlock))
	w.packer = packer[T]{parts: map[string]*partition[T]{}, openPerPartition: 1}
	if w.opts.Reorder {
		w.packer.openPerPartition = 4
	}
	w.policy = retry.Default()
	if w.opts.Retry != nil {
		w.policy = *w.opts.Retry
	}
	w.policy.Classify = notAmbiguous(w.policy.Classify)
	hook := w.policy.OnRetry
	w.policy.OnRetry = func(ev retry.Event) {
		w.ledger.retries.Add(1)
		if errors.Is(ev.Err, tablekit.ErrThrottled) {
			w.ledger.throttled.Add(1)
		}
		if hook != nil {
			hook(ev)
		}
	}
	w.sched.cond = sync.NewCond(&w.mu)
	w.sched.workers.SetLimit(w.opts.InFlight)
	return w
}

// run reads the input, forms and dispatches chunks, and waits for them.
func (w *writer[T]) run(input func(yield func(int, Op[T], *opKeys) bool)) {
	stoppedReading := false
	input(func(i int, op Op[T], k *opKeys) bool {
		if !w.add(i, op, k) {
			stoppedReading = true
			return false
		}
		return true
	})
	w.mu.Lock()
	var toStart []*partition[T]
	for _, p := range w.packer.order {
		toStart = w.sealAll(p, toStart)
	}
	w.ledger.inputUnread = stoppedReading
	w.mu.Unlock()
	w.startWorkers(toStart)
	_ = w.sched.workers.Wait()
}

// add takes the operation at input position i; k are its keys when the
// input read them already (nil otherwise). It returns false when the
// writer stops reading.
func (w *writer[T]) add(i int, op Op[T], k *opKeys) bool {
	if w.ctx.Err() != nil || w.isStopped() {
		return false
	}
	enc, err := w.enc.encode(op, k)
	if err == nil {
		// Too large even for a transaction of its own.
		alone := w.enc.limits()
		err = alone.check(&enc)
	}
	pk := enc.pk

	w.mu.Lock()
	w.ledger.read++
	if w.ledger.fromSeq {
		w.ledger.states = append(w.ledger.states, NotSent)
		w.ledger.opsTotal++
	}
	p := w.partition(pk)
	var toStart []*partition[T]
	switch {
	case err != nil:
		// Earlier operations of the partition still go; later ones not.
		toStart = w.sealAll(p, toStart)
		if !p.halted {
			p.halted, p.lastToSend = true, w.packer.nextID-1
		}
		c := &chunk[T]{id: w.packer.nextID, pk: pk, positions: []int{i}, invalid: true}
		w.packer.nextID++
		w.finishLocked(p, c, Failed, invalidAt("write", i, err), false)
	case p.halted:
		// An earlier chunk of the partition did not commit: not sent.
	default:
		w.mu.Unlock()
		w.reserve(enc.size)
		w.mu.Lock()
		if p.halted || w.sched.stopped {
			w.sched.buffered -= enc.size
			break
		}
		toStart = w.place(p, i, enc, toStart)
	}
	w.mu.Unlock()
	w.startWorkers(toStart)
	return true
}

func (w *writer[T]) isStopped() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.sched.stopped
}
