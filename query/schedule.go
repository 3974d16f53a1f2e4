package query

import (
	"context"

	"golang.org/x/sync/errgroup"
)

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
				yield(zero, errRunStalled)
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
