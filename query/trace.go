package query

import (
	"context"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/tracing"

	"github.com/tablekit/tablekit/internal/core"
	"github.com/tablekit/tablekit/internal/spans"
	"github.com/tablekit/tablekit/table"
)

// Span names: a run of a query (Cursor.All, Cursor.Pages, ParallelCursor.All)
// and each page it fetched, a child of the run.
const (
	spanCursorAll   = "query.Cursor.All"
	spanCursorPages = "query.Cursor.Pages"
	spanParallelAll = "query.ParallelCursor.All"
	spanPage        = "query.page"
)

// startRun starts the span of a query run; its pages become children. The
// filter is not recorded: its literals are often customer data.
func startRun[T any](ctx context.Context, t *table.Table[T], name string) (context.Context, *spans.Span) {
	ctx, sp := spans.Start(ctx, (*core.Table)(t).Tracer(), name)
	if sp != nil {
		sp.Set(tracing.Attribute{Key: spans.Table, Value: t.Name()})
	}
	return ctx, sp
}

// startRun starts the span of a parallel run, with its shape.
func (c *ParallelCursor[T]) startRun(ctx context.Context) (context.Context, *spans.Span) {
	ctx, sp := startRun(ctx, c.plans[0].t, spanParallelAll)
	if sp != nil {
		sp.Set(
			tracing.Attribute{Key: spans.Segments, Value: len(c.plans)},
			tracing.Attribute{Key: spans.Parallelism, Value: c.parallelism},
		)
	}
	return ctx, sp
}

// endRun ends a run's span with what it fetched and handed out.
func endRun(sp *spans.Span, pages, entities int, err error) {
	if sp == nil {
		return
	}
	sp.Set(
		tracing.Attribute{Key: spans.Pages, Value: pages},
		tracing.Attribute{Key: spans.Entities, Value: entities},
	)
	sp.End(err)
}

// tracedFetch is fetch under a span of its own, so that a slow or retried
// page stands out; segment is the page's segment in a parallel run, or -1.
func (p *plan[T]) tracedFetch(ctx context.Context, pos position, top, segment int) (*rawPage[T], error) {
	ctx, sp := spans.Start(ctx, (*core.Table)(p.t).Tracer(), spanPage)
	page, err := p.fetch(ctx, pos, top, segment)
	if sp == nil {
		return page, err
	}
	if segment >= 0 {
		sp.Set(tracing.Attribute{Key: spans.Segment, Value: segment})
	}
	if page != nil {
		sp.Set(
			tracing.Attribute{Key: spans.Entities, Value: len(page.entities)},
			tracing.Attribute{Key: spans.Continuation, Value: !page.next.Done},
		)
	}
	sp.Set(tracing.Attribute{Key: spans.Attempts, Value: sp.Attempts()})
	sp.End(err)
	return page, err
}
