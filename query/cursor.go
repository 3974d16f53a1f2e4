package query

import (
	"context"
	"iter"
	"sync"
)

// Page is one response of the service, as Pages yields it.
type Page[T any] struct {
	// Entities are the page's entities, in (PartitionKey, RowKey) order on
	// Table Storage (Cosmos DB does not sort them). A page can be short, or
	// empty, while there is more.
	Entities []T
	// Token resumes after this page (Query.Resume); "" when nothing is left.
	Token string
}

// Cursor is a resumable position in a query: iterate it with All or Pages,
// from one goroutine at a time (it continues where a break or an error
// stopped it); Token tells how to continue, in this process or another.
type Cursor[T any] struct {
	plan    *plan[T]
	binding string
	mu      sync.Mutex
	tracker tracker
}

// Resume returns a cursor at the position of token (Cursor.Token or
// Page.Token of the same query; "" starts at the beginning). A token of
// another query is tablekit.ErrInvalid, before any request.
func (q Query[T]) Resume(token string) (*Cursor[T], error) {
	p, err := q.compile(Filter{})
	if err != nil {
		return nil, err
	}
	c := &Cursor[T]{plan: p, binding: binding("tablekit.query/1", q.t.Name(), p.filter, p.selectText())}
	c.tracker.ordered = keyOrder(q.t)
	if token != "" {
		tok, err := decodeToken(token, c.binding)
		if err != nil {
			return nil, err
		}
		if len(tok.Segments) > 0 {
			return nil, errTokenMismatch
		}
		c.tracker.position = tok.position
		if err := c.tracker.resumable(-1, backendName(q.t)); err != nil {
			return nil, err
		}
		if err := checkResumable(c.tracker.ordered, tok.position); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// Token returns the position after the last entity handed out (inside the
// loop body: after the current one), as an opaque string for Resume; "" when
// the query has nothing left.
func (c *Cursor[T]) Token() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.tokenLocked()
}

func (c *Cursor[T]) tokenLocked() string {
	if c.tracker.position.Done {
		return ""
	}
	return encodeToken(tokenJSON{Binding: c.binding, position: c.tracker.snapshot()})
}

func (c *Cursor[T]) position() position {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.tracker.snapshot()
}

// pageLoop is the loop of All and Pages: it fetches the page at the
// cursor's position, hands it to consume and follows the continuation until
// the query is done, the limit is reached, a request fails (its error is
// returned) or consume returns false. consume gets how many entities were
// handed out before the page, moves the position, and returns how many it
// handed out. name names the run's span.
func (c *Cursor[T]) pageLoop(ctx context.Context, name string, consume func(page *rawPage[T], returned int) (handed int, more bool)) (err error) {
	if c.plan == nil {
		return errZeroCursor
	}
	ctx, sp := startRun(ctx, c.plan.t, name)
	returned, pages := 0, 0
	defer func() { endRun(sp, pages, returned, err) }()
	for {
		pos := c.position()
		if pos.Done {
			return nil
		}
		top, ok := c.top(returned)
		if !ok {
			return nil
		}
		page, err := c.plan.tracedFetch(ctx, pos, top, -1)
		if err != nil {
			return err
		}
		pages++
		handed, more := consume(page, returned)
		returned += handed
		if !more {
			return nil
		}
	}
}

// top is the $top of the next request: a page, or what the limit still
// needs; false when the limit is reached.
func (c *Cursor[T]) top(returned int) (int, bool) {
	top := c.plan.pageSize
	if c.plan.limit > 0 {
		rest := c.plan.limit - returned
		if rest <= 0 {
			return 0, false
		}
		top = min(top, rest)
	}
	return top, true
}

// All yields the entities from the cursor's position on, following
// continuation to the end or Limit; a break stops fetching. An error (a
// tablekit sentinel) is yielded once; a later All retries from there.
func (c *Cursor[T]) All(ctx context.Context) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		err := c.pageLoop(ctx, spanCursorAll, func(page *rawPage[T], returned int) (int, bool) {
			if len(page.entities) == 0 {
				c.mu.Lock()
				c.tracker.finishPage(page.next)
				c.mu.Unlock()
				return 0, true
			}
			handed := 0
			for i, e := range page.entities {
				if c.plan.limit > 0 && returned+handed >= c.plan.limit {
					return handed, false // only if the service sent more than $top
				}
				// The position moves before the entity is handed out, so
				// Token inside the loop body, and after a break, is exact.
				c.mu.Lock()
				isNew := c.tracker.keeps(page.keyed(), i)
				if isNew {
					c.tracker.advanceTo(page.fetchedAt, page.keyed(), i)
				}
				if i == len(page.entities)-1 {
					c.tracker.finishPage(page.next)
				}
				c.mu.Unlock()
				if !isNew {
					continue
				}
				handed++
				if !yield(e, nil) {
					return handed, false
				}
			}
			return handed, true
		})
		if err != nil {
			var zero T
			yield(zero, err)
		}
	}
}

// Pages yields the cursor's entities page by page, each with the token that
// resumes after it; empty pages are yielded too, so a checkpoint after every
// page never loses progress. Errors and breaks behave as in All.
func (c *Cursor[T]) Pages(ctx context.Context) iter.Seq2[Page[T], error] {
	return func(yield func(Page[T], error) bool) {
		err := c.pageLoop(ctx, spanCursorPages, func(page *rawPage[T], _ int) (int, bool) {
			out := Page[T]{Entities: make([]T, 0, len(page.entities))}
			c.mu.Lock()
			for i, e := range page.entities {
				if c.tracker.keeps(page.keyed(), i) {
					c.tracker.advanceTo(page.fetchedAt, page.keyed(), i)
					out.Entities = append(out.Entities, e)
				}
			}
			c.tracker.finishPage(page.next)
			out.Token = c.tokenLocked()
			c.mu.Unlock()
			return len(out.Entities), yield(out, nil)
		})
		if err != nil {
			yield(Page[T]{}, err)
		}
	}
}
