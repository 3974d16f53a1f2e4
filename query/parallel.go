package query

import (
	"context"
	"fmt"
	"iter"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/internal/core"
	"github.com/tablekit/tablekit/internal/errmap"
	"github.com/tablekit/tablekit/table"
)

// Parallelism bounds for ParallelOptions.Parallelism.
const (
	// DefaultParallelism is the requests in flight when
	// ParallelOptions.Parallelism is 0: enough that round trips overlap, few
	// enough that one client does not make the service throttle it.
	DefaultParallelism = 8
	// MaxParallelism is the most requests a parallel run may keep in flight:
	// table.DefaultPoolSize, so that every request finds a pooled connection.
	MaxParallelism = 64
)

// The transport's pool must hold a connection per request in flight.
var _ = [table.DefaultPoolSize - MaxParallelism]struct{}{}

// ParallelOptions tunes a parallel run; nil means defaults. It is never
// modified.
type ParallelOptions struct {
	// Parallelism is the most requests in flight at once, 1 to
	// MaxParallelism; 0 means DefaultParallelism.
	Parallelism int
	// Ordered merges the segments' entities in (PartitionKey, RowKey) order
	// instead of streaming them as pages arrive (the default), holding a
	// page per segment. Without key order it is tablekit.ErrUnsupported.
	Ordered bool
	// Resume is a token from ParallelCursor.Token of the same query and
	// segments: each segment continues where it stopped. "" starts at the
	// beginning.
	//
	// Deprecated: use Query.ResumeParallel, which resumes a parallel run
	// as Query.Resume resumes a Cursor.
	Resume string
}

// ParallelCursor is a resumable parallel run of one query as segments, each
// with its own position. Its methods may be called from any goroutine;
// iterate it from one at a time.
type ParallelCursor[T any] struct {
	plans       []*plan[T]
	binding     string
	parallelism int
	ordered     bool
	limit       int
	mu          sync.Mutex
	trackers    []tracker
}

// Parallel prepares a run of q split into segments, with at most
// Parallelism requests in flight. It checks the query, every segment and
// the options before any I/O (tablekit.ErrInvalid, tablekit.ErrUnsupported).
func (q Query[T]) Parallel(segments []Segment, o *ParallelOptions) (*ParallelCursor[T], error) {
	return q.ResumeParallel("", segments, o)
}

// ResumeParallel is Parallel continuing from token, a ParallelCursor.Token
// of the same query and segments: each segment continues where it
// stopped; "" starts at the beginning. It is to a parallel run what Resume
// is to a Cursor. A token of another query or other segments is
// tablekit.ErrInvalid, before any request.
func (q Query[T]) ResumeParallel(token string, segments []Segment, o *ParallelOptions) (*ParallelCursor[T], error) {
	var opts ParallelOptions
	if o != nil {
		opts = *o
	}
	switch {
	case token == "":
		token = opts.Resume // the deprecated option
	case opts.Resume != "" && opts.Resume != token:
		return nil, errmap.Invalid("query", "token", "two different tokens: ResumeParallel's and ParallelOptions.Resume")
	}
	if opts.Parallelism == 0 {
		opts.Parallelism = DefaultParallelism
	}
	if opts.Parallelism < 1 || opts.Parallelism > MaxParallelism {
		return nil, errmap.Invalidf("query", "options", "parallelism %d is outside 1..%d", opts.Parallelism, MaxParallelism)
	}
	if err := q.check(); err != nil {
		return nil, err
	}
	if opts.Ordered && !keyOrder(q.t) {
		return nil, fmt.Errorf("%w: query: Ordered merges segments in key order, and %s does not return entities in key order", tablekit.ErrUnsupported, backendName(q.t))
	}
	if pool := (*core.Table)(q.t); pool.PoolSize() > 0 && pool.PoolSize() < opts.Parallelism {
		return nil, errmap.Invalidf("query", "options", "parallelism %d exceeds the connection pool (table.Options.PoolSize %d)", opts.Parallelism, pool.PoolSize())
	}
	if len(segments) == 0 {
		return nil, errmap.Invalid("query", "options", "no segments")
	}
	base, _ := q.filter.Build() // checked by compile below
	bindingParts := []string{q.t.Name(), base}
	c := &ParallelCursor[T]{parallelism: opts.Parallelism, ordered: opts.Ordered, limit: q.limit}
	for i, seg := range segments {
		segPlan, err := q.compile(seg.Filter)
		if err != nil {
			return nil, fmt.Errorf("segment %d: %w", i, err)
		}
		segPlan.limit = 0 // the run's limit is counted by the run
		if i > 0 {
			segPlan.lastBody = c.plans[0].lastBody
		}
		c.plans = append(c.plans, segPlan)
		segFilter, _ := seg.Filter.Build()
		bindingParts = append(bindingParts, segFilter)
	}
	bindingParts = append(bindingParts, c.plans[0].selectText())
	c.binding = binding(append([]string{"tablekit.parallel/1"}, bindingParts...)...)
	c.trackers = make([]tracker, len(segments))
	for i := range c.trackers {
		c.trackers[i].ordered = keyOrder(q.t)
	}
	if token != "" {
		tok, err := decodeToken(token, c.binding)
		if err != nil {
			return nil, err
		}
		if len(tok.Segments) != len(segments) {
			return nil, errmap.Invalidf("query", "token", "%d segment positions for %d segments", len(tok.Segments), len(segments))
		}
		for i, pos := range tok.Segments {
			c.trackers[i].position = pos
			if err := c.trackers[i].resumable(i, backendName(q.t)); err != nil {
				return nil, err
			}
			if err := checkResumable(c.trackers[i].ordered, pos); err != nil {
				return nil, fmt.Errorf("segment %d: %w", i, err)
			}
		}
	}
	return c, nil
}

// Token returns every segment's position after the entities handed out so
// far, as one opaque string for ParallelOptions.Resume; "" when every
// segment is finished.
func (c *ParallelCursor[T]) Token() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	tok := tokenJSON{Binding: c.binding, Segments: make([]position, len(c.trackers))}
	done := true
	for i := range c.trackers {
		tok.Segments[i] = c.trackers[i].snapshot()
		done = done && tok.Segments[i].Done
	}
	if done {
		return ""
	}
	return encodeToken(tok)
}

// All runs the segments and yields their entities as their pages arrive, a
// page whole, the last arrived first (or in key order with Ordered), until
// every segment is finished or Limit is reached. An error or a break
// cancels the requests in flight; no goroutine outlives it.
func (c *ParallelCursor[T]) All(ctx context.Context) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		if c.parallelism == 0 {
			yield(*new(T), errZeroCursor)
			return
		}
		r := &parallelRun[T]{cursor: c, segments: make([]segmentRun[T], len(c.plans))}
		ctx, sp := c.startRun(ctx)
		defer func() { endRun(sp, r.pages, r.handedOut, r.firstErr) }()
		ctx, cancel := context.WithCancel(ctx)
		r.group, r.groupCtx = errgroup.WithContext(ctx)
		r.group.SetLimit(c.parallelism)
		// Every request sends exactly one result; with room for all of
		// them no sender ever blocks, so Wait below cannot hang.
		r.results = make(chan fetchResult[T], c.parallelism)
		defer func() {
			cancel()
			_ = r.group.Wait()
		}()
		c.mu.Lock()
		for i := range r.segments {
			r.segments[i].fetchAt = c.trackers[i].snapshot()
			if !r.segments[i].fetchAt.Done {
				r.idle++
			}
		}
		c.mu.Unlock()
		r.loop(yield)
	}
}
