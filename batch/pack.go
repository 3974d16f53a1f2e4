package batch

// packer forms the chunks of each partition: every operation goes into the
// first open chunk it fits by txLimits, keeping operations on one entity in
// order.
type packer[T any] struct {
	parts map[string]*partition[T]
	order []*partition[T] // in order of first appearance
	// openPerPartition is how many chunks of a partition may take
	// operations at once: 1 keeps input order, 4 with WriteOptions.Reorder.
	openPerPartition int
	nextID           int // id of the next chunk: ids follow formation order
}

// partition is the state of one PartitionKey.
type partition[T any] struct {
	pk string
	// pending are the chunks formed and not yet dispatched, in order: open
	// ones and sealed ones waiting behind an earlier open one.
	pending []*chunk[T]
	queued  []*chunk[T] // dispatched, waiting for the partition's worker
	working bool        // a worker goroutine serves queued
	// After a chunk of the partition does not commit (or an operation is
	// invalid), halted is set and chunks with an id above lastToSend are
	// not sent.
	halted     bool
	lastToSend int
	// unknownRows are the entities of chunks that ended Unknown: later
	// operations on them are not sent (unknown.go).
	unknownRows map[string]bool
}

// chunk is one transaction of a Write.
type chunk[T any] struct {
	id        int
	pk        string
	positions []int     // input position of each operation
	wire      []encoded // each valid operation's part, in order
	lim       txLimits
	sealed    bool // takes no more operations
	// invalid marks the chunk of one invalid operation, which is never sent
	// and not counted as a transaction.
	invalid bool
	state   State
	err     error
}

func (c *chunk[T]) add(pos int, enc encoded) {
	c.positions = append(c.positions, pos)
	c.wire = append(c.wire, enc)
	c.lim.add(&enc)
}

// partitionOps are the input positions of one partition's operations,
// with the keys of each (read once, here).
type partitionOps struct {
	pk        string
	positions []int
	keys      []opKeys
}

// groupByPartition groups Write's input by PartitionKey, in order of first
// appearance, so that one partition's transactions fill up before the next
// partition starts.
func groupByPartition[T any](enc *encoder[T], ops []Op[T]) []partitionOps {
	var groups []partitionOps
	index := map[string]int{}
	for i := range ops {
		k := enc.keys(&ops[i])
		g, ok := index[k.pk]
		if !ok {
			g = len(groups)
			index[k.pk] = g
			groups = append(groups, partitionOps{pk: k.pk})
		}
		groups[g].positions = append(groups[g].positions, i)
		groups[g].keys = append(groups[g].keys, k)
	}
	return groups
}

// partition returns the state of pk, creating it. Called with w.mu held.
func (w *writer[T]) partition(pk string) *partition[T] {
	p := w.packer.parts[pk]
	if p == nil {
		p = &partition[T]{pk: pk}
		w.packer.parts[pk] = p
		w.packer.order = append(w.packer.order, p)
	}
	return p
}

// place puts the operation into the first open chunk of its partition that
// comes after every chunk holding the same entity and has room, or into a
// new chunk. Called with w.mu held.
func (w *writer[T]) place(p *partition[T], i int, enc encoded, toStart []*partition[T]) []*partition[T] {
	first := 0 // the first chunk after every one holding the entity
	for j := len(p.pending) - 1; j >= 0; j-- {
		if _, ok := p.pending[j].lim.rows[enc.rk]; ok {
			first = j + 1
			break
		}
	}
	for _, c := range p.pending[first:] {
		if !c.sealed && c.lim.check(&enc) == nil {
			c.add(i, enc)
			c.sealed = c.lim.full()
			return w.dispatch(p, toStart)
		}
	}
	for open := p.openChunks(); open >= w.packer.openPerPartition; open-- {
		for _, c := range p.pending {
			if !c.sealed {
				c.sealed = true
				break
			}
		}
	}
	c := &chunk[T]{id: w.packer.nextID, pk: p.pk, lim: w.enc.limits()}
	w.packer.nextID++
	w.ledger.chunksFormed++
	c.add(i, enc)
	c.sealed = c.lim.full()
	p.pending = append(p.pending, c)
	return w.dispatch(p, toStart)
}

func (p *partition[T]) openChunks() int {
	n := 0
	for _, c := range p.pending {
		if !c.sealed {
			n++
		}
	}
	return n
}

// closePartition seals a partition whose operations have all been read.
func (w *writer[T]) closePartition(pk string) {
	w.mu.Lock()
	var toStart []*partition[T]
	if p := w.packer.parts[pk]; p != nil {
		toStart = w.sealAll(p, toStart)
	}
	w.mu.Unlock()
	w.startWorkers(toStart)
}

// sealAll seals and dispatches every chunk of p. Called with w.mu held.
func (w *writer[T]) sealAll(p *partition[T], toStart []*partition[T]) []*partition[T] {
	for _, c := range p.pending {
		c.sealed = true
	}
	return w.dispatch(p, toStart)
}

// sealOldest seals the oldest open chunk of any partition. Called with w.mu
// held; ok is false when there is none.
func (w *writer[T]) sealOldest(toStart []*partition[T]) (_ []*partition[T], ok bool) {
	var oldest *chunk[T]
	var owner *partition[T]
	for _, p := range w.packer.order {
		for _, c := range p.pending {
			if !c.sealed && (oldest == nil || c.id < oldest.id) {
				oldest, owner = c, p
			}
		}
	}
	if oldest == nil {
		return toStart, false
	}
	oldest.sealed = true
	return w.dispatch(owner, toStart), true
}
