package query

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"iter"
	"math"
	"reflect"
	"slices"
	"sync/atomic"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/internal/backend"
	"github.com/tablekit/tablekit/internal/codec"
	"github.com/tablekit/tablekit/internal/core"
	"github.com/tablekit/tablekit/internal/errmap"
	"github.com/tablekit/tablekit/internal/opdesc"
	"github.com/tablekit/tablekit/table"
)

// MaxPageSize is the default PageSize, and the most entities Table Storage
// returns in one response. Cosmos DB documents no maximum: there PageSize
// may be larger.
const MaxPageSize = backend.PageSize

// Query is a read of a typed table beyond a single point get. It is an
// immutable value: every method returns a changed copy, so a base query can
// be shared and refined; errors in its parts are reported when it runs.
type Query[T any] struct {
	t           *table.Table[T]
	filter      Filter
	sel         []string
	hasSelect   bool // Select was called: sel, even empty, is sent
	pageSize    int
	limit       int
	anyTypes    bool
	noTableScan bool
	// schema is the stored type filters and $select are checked against:
	// T's plan.
	schema *codec.Plan
	err    error
}

// New starts a query over t that matches every entity (a table scan until
// Where narrows it).
func New[T any](t *table.Table[T]) Query[T] {
	q := Query[T]{t: t, pageSize: MaxPageSize}
	if !(*core.Table)(t).Usable() {
		q.err = errmap.Invalid("query", "options", "nil or zero table")
		return q
	}
	q.schema = (*core.Table)(t).Plan() // T's, as the table holds it
	return q
}

func (q Query[T]) keepFirstErr(err error) Query[T] {
	if q.err == nil {
		q.err = err
	}
	return q
}

// Where narrows the query to entities that also match f: called twice, it
// is And of both filters.
func (q Query[T]) Where(f Filter) Query[T] {
	q.filter = And(q.filter, f)
	return q
}

// Select projects on the server ($select): only these properties are sent,
// and fields of T not selected stay zero. A name T does not map is
// tablekit.ErrInvalid before any request; Select() fetches the keys only.
func (q Query[T]) Select(names ...string) Query[T] {
	q.sel = slices.Clone(names)
	q.hasSelect = true
	return q
}

// PageSize sets $top, the number of entities asked for per request: 1 to
// the backend's largest page (MaxPageSize, the default, on Table Storage).
// It is not a total: see Limit.
func (q Query[T]) PageSize(n int) Query[T] {
	if top := maxTop(q.t); n < 1 || n > top {
		return q.keepFirstErr(errmap.Invalidf("query", "options", "page size %d is outside 1..%d", n, top))
	}
	q.pageSize = n
	return q
}

// maxTop is the largest $top of t's backend: its documented largest page,
// or the largest $top that can be sent where none is documented.
func maxTop[T any](t *table.Table[T]) int {
	h := (*core.Table)(t)
	if !h.Usable() {
		return MaxPageSize
	}
	if max := h.Profile().MaxPageSize; max > 0 {
		return max
	}
	return math.MaxInt32
}

// Limit stops after n entities in total, across pages, per run (each All or
// Pages on a cursor returns at most n); nothing beyond the limit is fetched.
// 0 means no limit.
func (q Query[T]) Limit(n int) Query[T] {
	if n < 0 {
		return q.keepFirstErr(errmap.Invalidf("query", "options", "negative limit %d", n))
	}
	q.limit = n
	return q
}

// NoTableScan makes a query whose scope (or a parallel segment's) is a
// table scan refuse to run: tablekit.ErrInvalid, its ValidationError's
// Field "scope", so code that must stay cheap cannot regress silently.
func (q Query[T]) NoTableScan() Query[T] {
	q.noTableScan = true
	return q
}

// Filter returns the query's filter (the And of every Where).
func (q Query[T]) Filter() Filter { return q.filter }

// Scope returns the scope of the query's filter: point, partition, range or
// table scan. Log it, or use NoTableScan to enforce it.
func (q Query[T]) Scope() Scope { return q.filter.Scope() }

// All returns the matching entities from the start, following continuation
// across pages. Use Resume for a cursor whose position can be saved.
func (q Query[T]) All(ctx context.Context) iter.Seq2[T, error] {
	c, err := q.Resume("")
	if err != nil {
		return errSeq[T](err)
	}
	return c.All(ctx)
}

// Pages returns the matching entities page by page from the start; each
// Page carries the token that resumes after it.
func (q Query[T]) Pages(ctx context.Context) iter.Seq2[Page[T], error] {
	c, err := q.Resume("")
	if err != nil {
		return errSeq[Page[T]](err)
	}
	return c.Pages(ctx)
}

func errSeq[V any](err error) iter.Seq2[V, error] {
	return func(yield func(V, error) bool) {
		var zero V
		yield(zero, err)
	}
}

// Collect gathers a sequence into a slice. It stops at the first error and
// returns it with the entities gathered before it. It works for every
// iterator of this package: Query.All, Cursor.All, ParallelCursor.All.
func Collect[T any](seq iter.Seq2[T, error]) ([]T, error) {
	var out []T
	for v, err := range seq {
		if err != nil {
			return out, err
		}
		out = append(out, v)
	}
	return out, nil
}

// plan is a query compiled for execution: its texts built and checked.
type plan[T any] struct {
	t      *table.Table[T]
	filter string
	sel    *string
	// point: the filter names one entity; without $select it runs as a
	// GET of pk, rk, with it as a page (the only form that takes $select,
	// served as a point query all the same).
	point    bool
	pk, rk   string
	pageSize int
	limit    int
	// ordered: the backend returns key order, and its continuations name
	// keys; keys is what the filter fixes of the keys. Both check every
	// continuation before it is followed (checkContinuation).
	ordered bool
	keys    keyRange
	// lastBody is the size of the largest page read: the next one's first
	// buffer when its reply has no Content-Length (opdesc.Desc.SizeHint).
	// A parallel run's segments share one: their pages are alike, and most
	// segments of a run over many partitions read a single page, which
	// would otherwise grow its buffer by doubling from nothing (Azurite,
	// for one, sends pages chunked). The largest, not the last: a page
	// just larger than its buffer is copied whole into one twice its size,
	// and a buffer a page does not fill lives no longer than the page.
	lastBody *atomic.Int64
}

// check reports the query's own first error: a builder error, no table, or
// an invalid filter (before any segment's filter is added).
func (q Query[T]) check() error {
	if q.err != nil {
		return q.err
	}
	if q.t == nil || q.schema == nil {
		return errmap.Invalid("query", "options", "no table (make queries with query.New)")
	}
	_, err := q.filter.Build()
	return err
}

// compile builds the query with an extra (segment) filter, checking
// everything that can be checked without I/O.
func (q Query[T]) compile(extra Filter) (*plan[T], error) {
	if err := q.check(); err != nil {
		return nil, err
	}
	f := And(q.filter, extra)
	text, err := f.Build()
	if err != nil {
		return nil, err
	}
	if !q.anyTypes {
		if err := checkSchema(q.schema, f.n); err != nil {
			return nil, err
		}
	}
	if q.noTableScan && f.Scope() == ScopeTableScan {
		return nil, errmap.Invalidf("query", "scope", "table scan refused (NoTableScan): filter %q", text)
	}
	p := &plan[T]{t: q.t, filter: text, pageSize: cmp.Or(q.pageSize, MaxPageSize), limit: q.limit, ordered: keyOrder(q.t), keys: f.keyRange(), lastBody: new(atomic.Int64)}
	if q.hasSelect {
		s, err := q.schema.SelectList(q.sel)
		if err != nil {
			return nil, err
		}
		p.sel = &s
	}
	p.pk, p.rk, p.point = f.point()
	return p, nil
}

func (p *plan[T]) selectText() string {
	if p.sel == nil {
		return ""
	}
	return *p.sel
}

// rawPage is one response: the entities with their keys, the position it
// was fetched from and the position after it.
type rawPage[T any] struct {
	entities  []T
	keys      []keyPair // of each entity
	skip      int       // its first entities, returned before (a count skip)
	fetchedAt position  // the service continuation it was requested at
	next      position  // the continuation after it
}

// keyed is what a tracker reads of the page.
func (p *rawPage[T]) keyed() pageKeys { return pageKeys{keys: p.keys, skip: p.skip} }

// fetch makes one request at pos for at most top new entities. pos's
// service continuation says where; a count skip (pos.Skip) is checked
// here, as the page must start with the entities it skips (segment names
// the parallel segment in the error, -1 for a Cursor); skipping by key is
// the caller's job. top is always >= 1: a request without $top gets the
// service's default page. A page whose continuation cannot be followed
// (checkContinuation) is read again, at most continuationReads times.
func (p *plan[T]) fetch(ctx context.Context, pos position, top, segment int) (*rawPage[T], error) {
	if top < 1 {
		top = 1
	}
	from := position{NextPartitionKey: pos.NextPartitionKey, NextRowKey: pos.NextRowKey}
	if p.point {
		if page, done, err := p.pointDone(from, pos); done {
			return page, err
		}
		if p.sel == nil {
			return p.get(ctx, from)
		}
	}
	// A count skip reads its page again: the entities it skips come too.
	q := core.PageQuery{Select: p.sel, Top: int32(min(top+pos.Skip, maxTop(p.t))), NextPartitionKey: pos.NextPartitionKey, NextRowKey: pos.NextRowKey}
	if p.filter != "" {
		q.Filter = &p.filter
	}
	for reads := 1; ; reads++ {
		page, err := p.read(ctx, q, from)
		if err != nil {
			return nil, err
		}
		if err := checkContinuation(p.ordered, p.keys, from, page.next, page.keys); err != nil {
			if segment >= 0 {
				err = fmt.Errorf("segment %d: %w", segment, err)
			}
			if reads == continuationReads {
				return nil, errmap.Unavailable("query", reads, err)
			}
			if !readAgain(ctx, reads) {
				return nil, fmt.Errorf("query: %w; last failure: %w", ctx.Err(), err)
			}
			continue
		}
		if endsRange(p.ordered, p.keys, page.next) {
			page.next = position{Done: true}
		}
		if pos.Skip > 0 {
			if err := checkSkip(pos, page.keys, segment); err != nil {
				return nil, err
			}
			page.skip = pos.Skip
		}
		return page, nil
	}
}

// read makes the request q of a page fetched at from.
func (p *plan[T]) read(ctx context.Context, q core.PageQuery, from position) (*rawPage[T], error) {
	tb := (*core.Table)(p.t)
	d := tb.Describe(opdesc.QueryPage)
	page := &rawPage[T]{fetchedAt: from}
	// The page is decoded by the retry policy as its reply arrives, in
	// place of a check that the body is whole JSON (opdesc.Desc.Read);
	// here when no attempt did (an aztables client's table).
	read := false
	var ferr error
	d.Read = func(body []byte) error {
		read = true
		ferr = p.fill(page, body, int(q.Top))
		return ferr
	}
	d.SizeHint = int(p.lastBody.Load())
	resp, err := tb.Page(ctx, d, q)
	if err != nil {
		return nil, errmap.Map(d.Name(), err)
	}
	if !read {
		ferr = p.fill(page, resp.Body, int(q.Top))
	}
	if ferr != nil {
		return nil, ferr
	}
	for n := int64(len(resp.Body)); ; {
		if old := p.lastBody.Load(); n <= old || p.lastBody.CompareAndSwap(old, n) {
			break
		}
	}
	resp.Recycle() // the entities and keys are copies
	if resp.NextPartitionKey == nil && resp.NextRowKey == nil {
		page.next = position{Done: true}
	} else {
		page.next = position{NextPartitionKey: resp.NextPartitionKey, NextRowKey: resp.NextRowKey}
	}
	return page, nil
}

// checkSkip refuses a page that does not start with the entities a count
// skip says were returned from it.
func checkSkip(pos position, keys []keyPair, segment int) error {
	if len(keys) < pos.Skip {
		return positionLost(segment, fmt.Sprintf("the page at the token's continuation has %d entities, fewer than the %d returned from it before", len(keys), pos.Skip))
	}
	if pageDigest(keys[:pos.Skip]) != pos.Digest {
		return positionLost(segment, fmt.Sprintf("the page at the token's continuation does not start with the %d entities returned from it before: the backend returned them in another order, or entities were written or deleted there", pos.Skip))
	}
	return nil
}

// pointDone answers a point query without a request when it can: its one
// entity was returned already, or no entity can have its keys; done is
// false when a request must be made. Empty keys are tablekit.ErrInvalid.
func (p *plan[T]) pointDone(from, pos position) (page *rawPage[T], done bool, err error) {
	page = &rawPage[T]{fetchedAt: from, next: position{Done: true}}
	if _, seen := pos.lastReturned(); seen || pos.Skip > 0 {
		return page, true, nil // the one entity was returned already
	}
	if p.pk == "" || p.rk == "" {
		return nil, true, emptyKey(p.pk, p.rk)
	}
	prof := (*core.Table)(p.t).Profile()
	if codec.CheckKey(prof, "PartitionKey", p.pk) != nil || codec.CheckKey(prof, "RowKey", p.rk) != nil {
		return page, true, nil // no entity can have such keys
	}
	return nil, false, nil
}

// get runs a point query as a GET by key on the table's data path, as
// every page is fetched: one request, one page, done.
func (p *plan[T]) get(ctx context.Context, from position) (*rawPage[T], error) {
	page := &rawPage[T]{fetchedAt: from, next: position{Done: true}}
	tb := (*core.Table)(p.t)
	d := tb.Describe(opdesc.Get)
	d.PartitionKey, d.RowKey = p.pk, p.rk
	body, etag, err := tb.Get(ctx, d)
	if err != nil {
		if err = errmap.Map("query", err); errors.Is(err, tablekit.ErrNotFound) {
			return page, nil
		}
		return nil, err
	}
	page.entities = make([]T, 1)
	v := reflect.ValueOf(&page.entities[0]).Elem()
	if err := tb.Plan().Decode(body, v); err != nil {
		return nil, err
	}
	if etag != "" {
		tb.Plan().SetETag(v, string(etag))
	}
	page.keys = []keyPair{{p.pk, p.rk}}
	return page, nil
}
