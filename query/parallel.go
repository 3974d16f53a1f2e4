package query

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/tablekit/tablekit/table"
)

// Parallelism bounds for ParallelOptions.Parallelism.
const (
	// DefaultParallelism is the number of requests a parallel run keeps in
	// flight when ParallelOptions.Parallelism is 0: enough that round trips
	// overlap and latency stops dominating (8 requests of 20 ms take about
	// as long as one), few enough that one client does not make the
	// service throttle it.
	DefaultParallelism = 8
	// MaxParallelism is the most requests a parallel run may keep in
	// flight. It is at most table.DefaultParallelism, the idle-connection
	// pool per host of tablekit's transport, so that every request finds a
	// pooled connection instead of opening and closing one (connection
	// churn). If you lowered table.Options.Parallelism, keep
	// ParallelOptions.Parallelism at or below it.
	MaxParallelism = 64
)

// The transport's pool must hold a connection per request in flight.
var _ = [table.DefaultParallelism - MaxParallelism]struct{}{}

// Segment is one part of a query run in parallel: its Filter is And-ed with
// the query's filter. Segments of one run must not overlap, or entities in
// both are returned twice; the constructors below make segments that do not
// (and report duplicates or overlaps as errors). For your own split, such as
// RowKey ranges within one large partition, build Segment values directly.
type Segment struct {
	Filter Filter
}

// PartitionSegments makes one segment per partition key: the run reads
// exactly these partitions, each a partition query. A duplicate key is an
// error.
func PartitionSegments(partitionKeys ...string) []Segment {
	out := make([]Segment, len(partitionKeys))
	seen := make(map[string]bool, len(partitionKeys))
	for i, pk := range partitionKeys {
		out[i].Filter = Partition(pk)
		if seen[pk] {
			out[i].Filter = errFilter(fmt.Errorf("%w: partition key %q appears twice among the segments", ErrInvalidFilter, pk))
		}
		seen[pk] = true
	}
	return out
}

// RangeSegments splits the PartitionKey space at the given bounds, which
// must increase strictly: n bounds make n+1 segments, PartitionKey lt b1,
// b1 <= PartitionKey < b2, ..., PartitionKey ge bn. Together they cover
// every partition exactly once. Choose bounds that split your keys evenly
// (for zero-padded numeric keys, evenly spaced numbers).
func RangeSegments(bounds ...string) []Segment {
	out := make([]Segment, len(bounds)+1)
	for i := range out {
		var lo, hi Filter
		if i > 0 {
			lo = PartitionKey.Ge(String(bounds[i-1]))
		}
		if i < len(bounds) {
			hi = PartitionKey.Lt(String(bounds[i]))
		}
		out[i].Filter = And(lo, hi)
		if i > 0 && i < len(bounds) && compareUTF16(bounds[i-1], bounds[i]) >= 0 {
			out[i].Filter = errFilter(fmt.Errorf("%w: range bounds must increase: %q then %q", ErrInvalidFilter, bounds[i-1], bounds[i]))
		}
	}
	return out
}

// PrefixSegments makes one segment per PartitionKey prefix (a key range,
// see Property.HasPrefix). No prefix may be a prefix of another.
func PrefixSegments(prefixes ...string) []Segment {
	out := make([]Segment, len(prefixes))
	for i, p := range prefixes {
		out[i].Filter = PartitionKey.HasPrefix(p)
		for j := range i {
			if strings.HasPrefix(p, prefixes[j]) || strings.HasPrefix(prefixes[j], p) {
				out[i].Filter = errFilter(fmt.Errorf("%w: segment prefixes %q and %q overlap", ErrInvalidFilter, prefixes[j], p))
				break
			}
		}
	}
	return out
}

// ShardSegments makes one segment per shard prefix of table.ShardPrefixes:
// for tables whose PartitionKey starts with table.Shard(key, shards), the
// whole table (or, with a filter on the rest of the key, a slice of every
// shard) read shard by shard.
func ShardSegments(shards int) []Segment {
	return PrefixSegments(table.ShardPrefixes(shards)...)
}

// ParallelOptions tunes a parallel run; nil means defaults. It is never
// modified.
type ParallelOptions struct {
	// Parallelism is the most requests in flight at once, 1 to
	// MaxParallelism; 0 means DefaultParallelism.
	Parallelism int
	// Ordered returns the entities in (PartitionKey, RowKey) order across
	// all segments, by a k-way merge of the segments' streams (each is in
	// that order, as the service returns every query; segments that do not
	// overlap make the merge exact, overlapping ones would repeat entities
	// in either mode). The merge can only hand out an entity once every
	// unfinished segment has fetched its next page, so it holds a page per
	// segment, and a slow segment delays all of them. With key-range
	// segments the merge drains them one after the other while the others
	// read ahead within the run's budget. Unordered (the default) streams
	// entities as pages arrive: use it when order does not matter.
	Ordered bool
	// Resume is a token from ParallelCursor.Token of the same query and
	// segments: each segment continues where it stopped. "" starts at the
	// beginning.
	Resume string
}

// ParallelCursor is a resumable parallel run of one query as several
// segments; each segment is a query of its own with its own position, so an
// interrupted run resumes every segment where it stopped. Methods may be
// called from any goroutine; iterate it from one at a time.
type ParallelCursor[T any] struct {
	plans   []*plan[T]
	bind    string
	par     int
	ordered bool
	limit   int
	mu      sync.Mutex
	tr      []tracker
}

// Parallel prepares a run of q split into segments, with at most
// Parallelism requests in flight. It checks everything before any I/O: the
// query and every segment (ErrInvalidFilter, ErrTableScan per segment with
// NoTableScan), the options (table.ErrInvalidOptions), and the resume token
// (ErrInvalidToken, ErrTokenMismatch). Limit applies to the whole run.
func (q Query[T]) Parallel(segments []Segment, o *ParallelOptions) (*ParallelCursor[T], error) {
	var opts ParallelOptions
	if o != nil {
		opts = *o
	}
	if opts.Parallelism == 0 {
		opts.Parallelism = DefaultParallelism
	}
	if opts.Parallelism < 1 || opts.Parallelism > MaxParallelism {
		return nil, fmt.Errorf("%w: query: parallelism %d is outside 1..%d", table.ErrInvalidOptions, opts.Parallelism, MaxParallelism)
	}
	if err := q.check(); err != nil {
		return nil, err
	}
	if pool := q.t; pool.Parallelism() > 0 && pool.Parallelism() < opts.Parallelism {
		return nil, fmt.Errorf("%w: query: parallelism %d exceeds the connection pool (table.Options.Parallelism %d)", table.ErrInvalidOptions, opts.Parallelism, pool.Parallelism())
	}
	if len(segments) == 0 {
		return nil, fmt.Errorf("%w: query: no segments", table.ErrInvalidOptions)
	}
	base, _ := q.filter.Build() // checked by compile below
	parts := []string{q.t.Name(), base}
	c := &ParallelCursor[T]{par: opts.Parallelism, ordered: opts.Ordered, limit: q.limit}
	for i, s := range segments {
		p, err := q.compile(s.Filter)
		if err != nil {
			return nil, fmt.Errorf("segment %d: %w", i, err)
		}
		p.limit = 0 // the run's limit is counted by the run
		c.plans = append(c.plans, p)
		segText, _ := s.Filter.Build()
		parts = append(parts, segText)
	}
	parts = append(parts, c.plans[0].selectText())
	c.bind = binding(append([]string{"tablekit.parallel/1"}, parts...)...)
	c.tr = make([]tracker, len(segments))
	if opts.Resume != "" {
		t, err := decodeToken(opts.Resume, c.bind)
		if err != nil {
			return nil, err
		}
		if len(t.Segments) != len(segments) {
			return nil, fmt.Errorf("%w: %d segment positions for %d segments", ErrInvalidToken, len(t.Segments), len(segments))
		}
		for i, p := range t.Segments {
			c.tr[i].pos = p
		}
	}
	return c, nil
}

// Token returns every segment's position after the entities handed out so
// far, as one opaque string for ParallelOptions.Resume; "" when every
// segment is finished. Entities fetched but not yet handed out are not
// counted: they are fetched again on resume.
func (c *ParallelCursor[T]) Token() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := tokenJSON{Q: c.bind, Segments: make([]position, len(c.tr))}
	done := true
	for i, tr := range c.tr {
		t.Segments[i] = tr.pos
		done = done && tr.pos.Done
	}
	if done {
		return ""
	}
	return encodeToken(t)
}

// segRun is a segment's state within one iteration.
type segRun[T any] struct {
	fetchPos position      // where its next request starts
	inflight bool          // a request is running
	asked    int           // its $top
	queue    []*rawPage[T] // fetched, not yet consumed
	idx      int           // next entity of queue[0]
}

func (s *segRun[T]) finished() bool { return s.fetchPos.Done && len(s.queue) == 0 && !s.inflight }

type fetched[T any] struct {
	seg  int
	page *rawPage[T]
	err  error
}

// All runs the segments with bounded parallelism and returns their entities
// as they arrive (or merged in key order with Ordered), until every segment
// is finished or the query's Limit is reached. The first error is yielded
// once and cancels every request in flight. Breaking out of the loop, like
// an error, cancels the requests in flight and returns only once every
// goroutine of the run has ended: nothing keeps running after the loop.
// Each segment's position advances only with the entities handed out.
func (c *ParallelCursor[T]) All(ctx context.Context) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		r := &run[T]{c: c, segs: make([]segRun[T], len(c.plans))}
		ctx, cancel := context.WithCancel(ctx)
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(c.par)
		r.g, r.gctx = g, gctx
		// Every request sends exactly one result; with room for all of
		// them no sender ever blocks, so Wait below cannot hang.
		r.results = make(chan fetched[T], c.par)
		defer func() {
			cancel()
			_ = g.Wait()
		}()
		c.mu.Lock()
		for i := range r.segs {
			r.segs[i].fetchPos = c.tr[i].pos
		}
		c.mu.Unlock()
		r.loop(yield)
	}
}

// run is one iteration of a ParallelCursor. Only the iterating goroutine
// touches it; the fetch goroutines only send on results.
type run[T any] struct {
	c        *ParallelCursor[T]
	segs     []segRun[T]
	g        *errgroup.Group
	gctx     context.Context
	results  chan fetched[T]
	inflight int
	buffered int   // entities in queues, not yet consumed
	asked    int   // $top of the requests in flight
	returned int   // entities handed out
	arrivals []int // unordered: the segment of each queued page, in arrival order
	failed   error
}

// readAhead is how many pages per request in flight a run may hold before
// the caller takes them: the run holds at most about readAhead x
// Parallelism x PageSize entities (plus, when Ordered, one page per segment,
// which the merge needs).
const readAhead = 2

func (r *run[T]) launch(i, top int) {
	s := &r.segs[i]
	s.inflight, s.asked = true, top
	r.inflight++
	r.asked += top
	p, pos := r.c.plans[i], s.fetchPos
	r.g.Go(func() error {
		page, err := p.fetch(r.gctx, pos, top)
		r.results <- fetched[T]{seg: i, page: page, err: err}
		return err
	})
}

// topFor sizes the next request: a page, or less when the limit needs
// less. Unordered, what is buffered or asked for already counts; ordered,
// each segment may have to supply all that is left. 0: fetch nothing.
func (r *run[T]) topFor() int {
	c := r.c
	top := c.plans[0].pageSize
	if c.limit > 0 {
		rest := c.limit - r.returned
		if !c.ordered {
			rest -= r.buffered + r.asked
		} else {
			rest = max(rest, 1)
		}
		top = min(top, rest)
	}
	return top
}

// schedule starts requests up to the parallelism: first for segments with
// nothing queued (the merge waits on them), then read-ahead for the others,
// while what is held stays within the read-ahead budget.
func (r *run[T]) schedule() {
	c := r.c
	budget := readAhead * c.par * c.plans[0].pageSize
	for pass := range 2 {
		for i := range r.segs {
			if r.inflight >= c.par {
				return
			}
			s := &r.segs[i]
			if s.inflight || s.fetchPos.Done || (pass == 0) != (len(s.queue) == 0) {
				continue
			}
			needed := c.ordered && len(s.queue) == 0
			if !needed && r.buffered+r.asked >= budget {
				return // plenty is waiting for the caller
			}
			top := r.topFor()
			if top < 1 {
				return // the limit is covered by what is held or asked for
			}
			r.launch(i, top)
		}
	}
}

func (r *run[T]) receive(f fetched[T]) {
	s := &r.segs[f.seg]
	s.inflight = false
	r.inflight--
	r.asked -= s.asked
	if f.err != nil {
		if r.failed == nil {
			r.failed = f.err
		}
		return
	}
	s.fetchPos = f.page.next
	s.queue = append(s.queue, f.page)
	r.buffered += len(f.page.items)
	if !r.c.ordered {
		r.arrivals = append(r.arrivals, f.seg)
	}
}

func (r *run[T]) drain() {
	for {
		select {
		case f := <-r.results:
			r.receive(f)
		default:
			return
		}
	}
}

// pop removes segment i's consumed first page.
func (r *run[T]) pop(i int) {
	s := &r.segs[i]
	r.c.tr[i].finish(s.queue[0].next)
	s.queue[0] = nil
	s.queue = s.queue[1:]
	s.idx = 0
	if !r.c.ordered {
		r.arrivals = r.arrivals[1:]
	}
}

// head returns segment i's next entity to hand out, skipping entities at or
// before its position and finishing consumed pages. Unordered it looks at
// the first queued page only (pages are consumed in arrival order); ordered
// at every queued page. ok is false when there is none. Needs c.mu.
func (r *run[T]) head(i int) (e T, k keyPair, ok bool) {
	s := &r.segs[i]
	tr := &r.c.tr[i]
	for len(s.queue) > 0 {
		p := s.queue[0]
		for s.idx < len(p.items) {
			if tr.keep(p.keys[s.idx]) {
				return p.items[s.idx], p.keys[s.idx], true
			}
			s.idx++
			r.buffered--
		}
		r.pop(i)
		if !r.c.ordered {
			break
		}
	}
	return e, k, false
}

// take records that segment i's head was handed out. Needs c.mu.
func (r *run[T]) take(i int) {
	s := &r.segs[i]
	p := s.queue[0]
	r.c.tr[i].took(p.from, p.keys[s.idx])
	s.idx++
	r.buffered--
	if s.idx == len(p.items) {
		r.pop(i)
	}
}

// next picks the entity to hand out, if one can be picked now, and moves
// its segment's position. wait is true when the run must first receive a
// page.
func (r *run[T]) next() (e T, ok, wait bool) {
	c := r.c
	c.mu.Lock()
	defer c.mu.Unlock()
	pick := -1
	if c.ordered {
		var best keyPair
		for i := range r.segs {
			he, hk, has := r.head(i)
			if !has {
				if !r.segs[i].fetchPos.Done {
					return e, false, true // this segment's next entity must be seen first
				}
				continue // finished
			}
			if pick < 0 || compareKeys(hk, best) < 0 {
				pick, best, e = i, hk, he
			}
		}
	} else {
		for pick < 0 && len(r.arrivals) > 0 {
			i := r.arrivals[0]
			if he, _, has := r.head(i); has {
				pick, e = i, he
			}
		}
	}
	if pick < 0 {
		return e, false, r.inflight > 0
	}
	r.take(pick)
	return e, true, false
}

func (r *run[T]) loop(yield func(T, error) bool) {
	c := r.c
	for {
		if r.failed != nil {
			var zero T
			yield(zero, r.failed)
			return
		}
		if c.limit > 0 && r.returned >= c.limit {
			return
		}
		r.schedule()
		e, ok, wait := r.next()
		switch {
		case ok:
			r.returned++
			if !yield(e, nil) {
				return
			}
			r.drain()
		case wait || r.inflight > 0:
			if r.inflight == 0 { // cannot happen: schedule starts what the merge waits for
				var zero T
				yield(zero, errors.New("query: internal error: parallel run waits with no request in flight"))
				return
			}
			r.receive(<-r.results)
			r.drain()
		default:
			done := true
			for i := range r.segs {
				done = done && r.segs[i].finished()
			}
			if done {
				return
			}
			// Pages that were all skipped were just consumed; schedule
			// fetches the rest on the next turn.
		}
	}
}
