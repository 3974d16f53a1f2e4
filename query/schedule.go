package query

import (
	"context"

	"golang.org/x/sync/errgroup"
)

// segmentRun is a segment's state within one iteration.
type segmentRun[T any] struct {
	fetchAt    position      // where its next request starts
	fetching   bool          // a request is running
	requested  int           // the $top of its request
	pages      []*rawPage[T] // fetched, not yet consumed
	nextEntity int           // index of the next entity in pages[0]
}

func (s *segmentRun[T]) finished() bool { return s.fetchAt.Done && len(s.pages) == 0 && !s.fetching }

// fetchResult is what a fetch goroutine sends back.
type fetchResult[T any] struct {
	segment int
	page    *rawPage[T]
	err     error
}

// parallelRun is one iteration of a ParallelCursor. Only the iterating
// goroutine touches it; the fetch goroutines only send on results.
type parallelRun[T any] struct {
	cursor            *ParallelCursor[T]
	segments          []segmentRun[T]
	group             *errgroup.Group
	groupCtx          context.Context
	results           chan fetchResult[T]
	inFlight          int   // requests running
	idle              int   // segments neither fetching nor finished fetching
	bufferedEntities  int   // entities in pages, not yet consumed
	requestedEntities int   // $top of the requests in flight
	handedOut         int   // entities handed out
	pages             int   // pages received
	arrivalOrder      []int // unordered: the segment of each queued page, in arrival order
	consuming         int   // unordered: 1 + the segment whose page is being handed out, 0 for none
	firstErr          error
}

// readAhead is how many pages per request in flight a run may hold before
// the caller takes them: the run holds at most about readAhead x
// Parallelism x PageSize entities (plus, when Ordered, one page per segment,
// which the merge needs).
const readAhead = 2

// startFetch requests up to top entities of segment i at its fetch
// position, in a goroutine of the run's group.
func (r *parallelRun[T]) startFetch(i, top int) {
	seg := &r.segments[i]
	seg.fetching, seg.requested = true, top
	r.inFlight++
	r.idle--
	r.requestedEntities += top
	plan, at := r.cursor.plans[i], seg.fetchAt
	r.group.Go(func() error {
		page, err := plan.tracedFetch(r.groupCtx, at, top, i)
		r.results <- fetchResult[T]{segment: i, page: page, err: err}
		return err
	})
}

// nextTop sizes the next request: a page, or less when the limit needs
// less. Unordered, what is buffered or asked for already counts; ordered,
// each segment may have to supply all that is left. 0: fetch nothing.
func (r *parallelRun[T]) nextTop() int {
	c := r.cursor
	top := c.plans[0].pageSize
	if c.limit > 0 {
		rest := c.limit - r.handedOut
		if !c.ordered {
			rest -= r.bufferedEntities + r.requestedEntities
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
func (r *parallelRun[T]) schedule() {
	c := r.cursor
	budget := readAhead * c.parallelism * c.plans[0].pageSize
	// The loop below would find nothing to start; it runs once per entity
	// handed out, so these are checked before it walks the segments.
	if r.idle == 0 || r.inFlight >= c.parallelism || !c.ordered && r.bufferedEntities+r.requestedEntities >= budget {
		return
	}
	for pass := range 2 {
		for i := range r.segments {
			if r.inFlight >= c.parallelism {
				return
			}
			seg := &r.segments[i]
			if seg.fetching || seg.fetchAt.Done || (pass == 0) != (len(seg.pages) == 0) {
				continue
			}
			needed := c.ordered && len(seg.pages) == 0
			if !needed && r.bufferedEntities+r.requestedEntities >= budget {
				return // plenty is waiting for the caller
			}
			top := r.nextTop()
			if top < 1 {
				return // the limit is covered by what is held or asked for
			}
			r.startFetch(i, top)
		}
	}
}

// receive books a finished request: its page, or the run's first error.
func (r *parallelRun[T]) receive(f fetchResult[T]) {
	seg := &r.segments[f.segment]
	seg.fetching = false
	r.inFlight--
	r.requestedEntities -= seg.requested
	if f.err != nil {
		if r.firstErr == nil {
			r.firstErr = f.err
		}
		r.idle++
		return
	}
	r.pages++
	if seg.fetchAt = f.page.next; !seg.fetchAt.Done {
		r.idle++
	}
	seg.pages = append(seg.pages, f.page)
	r.bufferedEntities += len(f.page.entities)
	if !r.cursor.ordered {
		r.arrivalOrder = append(r.arrivalOrder, f.segment)
	}
}

// receiveReady receives the results that are ready without waiting.
func (r *parallelRun[T]) receiveReady() {
	for {
		select {
		case f := <-r.results:
			r.receive(f)
		default:
			return
		}
	}
}

// loop hands out entities, scheduling and receiving fetches, until the run
// ends.
func (r *parallelRun[T]) loop(yield func(T, error) bool) {
	c := r.cursor
	for {
		if r.firstErr != nil {
			var zero T
			yield(zero, r.firstErr)
			return
		}
		if c.limit > 0 && r.handedOut >= c.limit {
			return
		}
		r.schedule()
		entity, ok, wait := r.next()
		switch {
		case ok:
			r.handedOut++
			if !yield(entity, nil) {
				return
			}
			r.receiveReady()
		case wait || r.inFlight > 0:
			if r.inFlight == 0 { // cannot happen: schedule starts what the merge waits for
				var zero T
				yield(zero, errRunStalled)
				return
			}
			r.receive(<-r.results)
			r.receiveReady()
		default:
			done := true
			for i := range r.segments {
				done = done && r.segments[i].finished()
			}
			if done {
				return
			}
			// Pages that were all skipped were just consumed; schedule
			// fetches the rest on the next turn.
		}
	}
}
