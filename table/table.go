package table

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/internal/codec"
	"github.com/tablekit/tablekit/internal/core"
	"github.com/tablekit/tablekit/internal/errmap"
	"github.com/tablekit/tablekit/internal/opdesc"
	"github.com/tablekit/tablekit/internal/wire"
)

// AnyETag makes Update and Delete unconditional ("*"): the write wins over
// any concurrent change. Use it on purpose, never as a default.
const AnyETag = azcore.ETagAny

// Mode chooses how Upsert and Update treat an existing entity. The zero
// Mode is Replace, in this package as in package batch: the stored entity
// is exactly what was written, and a retry writes it again the same.
type Mode int

const (
	// Merge keeps stored properties that the new value does not carry
	// (fields that are nil pointers, omitempty zeros, or not in the struct).
	Merge Mode = iota + 1
	// Replace makes the stored entity exactly the new value.
	Replace
)

// merge reports whether m merges; the zero Mode replaces, and an unknown
// mode is tablekit.ErrInvalid.
func (m Mode) merge() (bool, error) {
	switch m {
	case Merge:
		return true, nil
	case 0, Replace:
		return false, nil
	}
	return false, errmap.Invalid("", "mode", "must be table.Merge or table.Replace")
}

// Meta is the stored version of an entity: what every write returns, and,
// embedded in an entity struct, what every read fills in with no tags
// needed. Pass ETag to Update or Delete for optimistic concurrency.
type Meta struct {
	ETag      azcore.ETag `table:",etag"`
	Timestamp time.Time   `table:",timestamp"` // the service's last-modified time
}

// Table is a typed handle on one table. T is a struct whose fields map to
// properties (see the package documentation for tags and types). A Table is
// safe for concurrent use and cheap: New does no I/O.
type Table[T any] core.Table

// handle is the table's state, shared with packages query and batch.
func (t *Table[T]) handle() *core.Table { return (*core.Table)(t) }

// New returns a typed handle on the named table of the service. It checks T's
// mapping once (an error matching tablekit.ErrInvalid names the field and why) and
// the table name; it does not create the table (see CreateTable).
func New[T any](s *Service, name string) (*Table[T], error) {
	if err := s.ready(); err != nil {
		return nil, err
	}
	if err := validateTableName(name); err != nil {
		return nil, err
	}
	plan, err := planOf[T]()
	if err != nil {
		return nil, err
	}
	return (*Table[T])(core.NewTable(s.core().Conn(), s.core().Raw().NewClient(name), name, plan)), nil
}

// Wrap returns a typed handle over an aztables client you already have,
// named name (aztables does not expose it): the slower path, through the
// client's own methods (the package documentation says what differs).
func Wrap[T any](c *aztables.Client, name string) (*Table[T], error) {
	if c == nil {
		return nil, errmap.Invalid("", "client", "nil")
	}
	if err := validateTableName(name); err != nil {
		return nil, err
	}
	plan, err := planOf[T]()
	if err != nil {
		return nil, err
	}
	return (*Table[T])(core.WrapClient(c, name, plan)), nil
}

// Name is the table's name.
func (t *Table[T]) Name() string { return t.handle().Name() }

// Client is the underlying aztables client: the one given to Wrap, or one
// on the service's transport, retry policy and credentials. A zero or nil
// Table's is never nil: every call fails with tablekit.ErrInvalid, unsent.
func (t *Table[T]) Client() *aztables.Client {
	if c := t.handle().Client(); c != nil {
		return c
	}
	return refusingServiceClient().NewClient("zero")
}

// Marshal encodes e as the service's JSON, with exact EDM type annotations,
// after checking the backend's rules (a *tablekit.ValidationError
// otherwise), for code that writes with plain aztables calls.
func (t *Table[T]) Marshal(e T) ([]byte, error) {
	if err := t.ready(); err != nil {
		return nil, err
	}
	return t.handle().Plan().Marshal(reflect.ValueOf(&e).Elem(), t.handle().Profile())
}

// AppendJSON appends e to dst as Marshal encodes it (with its checks),
// followed by e's Timestamp when it is set (annotated Edm.DateTime), the
// form a read returns and Unmarshal reads back: one JSON line of an
// export. A buffer reused for every entity costs no allocation for the
// bytes. On an error, dst is returned as it came.
func (t *Table[T]) AppendJSON(dst []byte, e T) ([]byte, error) {
	if err := t.ready(); err != nil {
		return dst, err
	}
	p, prof := t.handle().Plan(), t.handle().Profile()
	if ent, ok := any(&e).(*Entity); ok {
		// Export's case: no reflect.Value, so e stays off the heap.
		return p.AppendEntity(dst, ent.PartitionKey, ent.RowKey, ent.Properties, ent.Timestamp, prof)
	}
	v := e // the copy reflection moves to the heap, not e
	return p.AppendJSON(dst, reflect.ValueOf(&v).Elem(), prof)
}

// Unmarshal decodes one entity as the service returns it. It is for code
// that reads with plain aztables calls, such as a pager over a table that
// holds several entity types.
func (t *Table[T]) Unmarshal(data []byte) (T, error) {
	if err := t.ready(); err != nil {
		return *new(T), err
	}
	var e T
	err := t.handle().Plan().Decode(data, reflect.ValueOf(&e).Elem())
	return e, err
}

func (t *Table[T]) keys(e *T) (pk, rk string) {
	return t.handle().Plan().Keys(reflect.ValueOf(e).Elem())
}

// describe is the description of a write of one entity e, made where the
// call starts and carried with its request (opdesc).
func (t *Table[T]) describe(k opdesc.Kind, e *T, merge bool) opdesc.Desc {
	d := t.handle().Describe(k)
	d.PartitionKey, d.RowKey = t.keys(e)
	d.Entities, d.Merge = 1, merge
	return d
}

// GetOptions are the options of Get; nil means defaults.
type GetOptions struct {
	// Select fetches only these properties (plus the keys, Timestamp and
	// ETag): projection on the server saves bandwidth and decoding. Names
	// must be properties of T.
	Select []string
}

// Get reads one entity by its keys: a point query, the cheapest read there
// is. It returns an error matching tablekit.ErrNotFound when there is none, and
// tablekit.ErrTableNotFound when the table is missing.
func (t *Table[T]) Get(ctx context.Context, partitionKey, rowKey string, o *GetOptions) (T, error) {
	if err := t.ready(); err != nil {
		return *new(T), err
	}
	var zero T
	if err := t.checkKeys(partitionKey, rowKey); err != nil {
		return zero, err
	}
	d := t.handle().Describe(opdesc.Get)
	d.PartitionKey, d.RowKey = partitionKey, rowKey
	if o != nil && len(o.Select) > 0 {
		return t.getSelect(ctx, d, o.Select)
	}
	data, etag, err := t.handle().Get(ctx, d)
	if err != nil {
		return zero, errmap.Map(d.Name(), err)
	}
	e, err := t.Unmarshal(data)
	if err != nil {
		return zero, err
	}
	if etag != "" {
		t.handle().Plan().SetETag(reflect.ValueOf(&e).Elem(), string(etag))
	}
	return e, nil
}

// getSelect runs the point read d as a query, the only form of it that
// takes $select. The service still serves it as a point query.
func (t *Table[T]) getSelect(ctx context.Context, d opdesc.Desc, sel []string) (T, error) {
	var zero T
	selectList, err := t.handle().Plan().SelectList(sel)
	if err != nil {
		return zero, err
	}
	filter := "PartitionKey eq " + wire.QuoteString(d.PartitionKey) + " and RowKey eq " + wire.QuoteString(d.RowKey)
	q := core.PageQuery{Filter: &filter, Select: &selectList, Top: 1}
	pd := d
	pd.Kind = opdesc.QueryPage
	for {
		page, err := t.handle().Page(ctx, pd, q)
		if err != nil {
			return zero, errmap.Map(d.Name(), err)
		}
		if e, ok, err := t.firstOf(page.Body); ok || err != nil {
			return e, err
		}
		if page.NextPartitionKey == nil && page.NextRowKey == nil {
			break
		}
		q.NextPartitionKey, q.NextRowKey = page.NextPartitionKey, page.NextRowKey
	}
	return zero, &tablekit.ServiceError{Operation: "get", StatusCode: http.StatusNotFound, Code: "ResourceNotFound", Index: -1, Err: errNoEntity}
}

// errStop ends a page scan at its first entity.
var errStop = errors.New("stop")

// firstOf decodes the first entity of a query page; ok is false when the
// page has none.
func (t *Table[T]) firstOf(page []byte) (e T, ok bool, err error) {
	var derr error
	err = codec.PageEntities(page, func(raw []byte) error {
		e, derr = t.Unmarshal(raw)
		ok = true
		return errStop
	})
	if ok {
		return e, true, derr
	}
	return e, false, err
}

var errNoEntity = errors.New("no entity with these keys")

// Add inserts e. It fails with an error matching tablekit.ErrAlreadyExists
// when an entity with the same keys exists, and tablekit.ErrMaybeCommitted
// when a retry after a lost reply found it (Verify tells).
func (t *Table[T]) Add(ctx context.Context, e T) (Meta, error) {
	if err := t.ready(); err != nil {
		return Meta{}, err
	}
	// Encoded into a pooled buffer, which the insert gives back once sent.
	h := t.handle()
	buf := core.EntityBuffer()
	body, err := h.Plan().Encode((*buf)[:0], reflect.ValueOf(&e).Elem(), h.Profile())
	if err != nil {
		return Meta{}, err
	}
	d := t.describe(opdesc.Insert, &e, false)
	etag, err := h.Insert(ctx, d, body, buf)
	if err != nil {
		return Meta{}, errmap.Map(d.Name(), err)
	}
	return metaOf(etag), nil
}

// Upsert inserts e or, if an entity with its keys exists, merges into it or
// replaces it. It needs no ETag and no read first: the checklist's way to
// write when the last writer may win. Retrying an upsert is always safe.
func (t *Table[T]) Upsert(ctx context.Context, e T, mode Mode) (Meta, error) {
	if err := t.ready(); err != nil {
		return Meta{}, err
	}
	merge, err := mode.merge()
	if err != nil {
		return Meta{}, err
	}
	body, err := t.Marshal(e)
	if err != nil {
		return Meta{}, err
	}
	d := t.describe(opdesc.Upsert, &e, merge)
	etag, err := t.handle().Write(ctx, d, core.Write{Entity: body})
	if err != nil {
		return Meta{}, errmap.Map(d.Name(), err)
	}
	return metaOf(etag), nil
}

// Update changes an existing entity only if its ETag still matches
// (optimistic concurrency; AnyETag overwrites): otherwise
// tablekit.ErrPreconditionFailed, or tablekit.ErrNotFound when it is gone.
func (t *Table[T]) Update(ctx context.Context, e T, mode Mode, etag azcore.ETag) (Meta, error) {
	if err := t.ready(); err != nil {
		return Meta{}, err
	}
	merge, err := mode.merge()
	if err != nil {
		return Meta{}, err
	}
	if etag == "" {
		return Meta{}, errETagRequired
	}
	body, err := t.Marshal(e)
	if err != nil {
		return Meta{}, err
	}
	d := t.describe(opdesc.Update, &e, merge)
	d.Conditional = etag != AnyETag
	stored, err := t.handle().Write(ctx, d, core.Write{Entity: body, IfMatch: &etag})
	if err != nil {
		return Meta{}, errmap.Map(d.Name(), err)
	}
	return metaOf(stored), nil
}

// Delete removes an entity if its ETag (or AnyETag) still matches:
// otherwise tablekit.ErrPreconditionFailed, or tablekit.ErrNotFound when it
// does not exist. An empty etag is tablekit.ErrInvalid.
func (t *Table[T]) Delete(ctx context.Context, partitionKey, rowKey string, etag azcore.ETag) error {
	if err := t.ready(); err != nil {
		return err
	}
	if etag == "" {
		return errETagRequired
	}
	if err := t.checkKeys(partitionKey, rowKey); err != nil {
		return err
	}
	d := t.handle().Describe(opdesc.Delete)
	d.PartitionKey, d.RowKey, d.Entities, d.Conditional = partitionKey, rowKey, 1, etag != AnyETag
	err := t.handle().Delete(ctx, d, etag)
	if deletedOnRetry(err) {
		return nil
	}
	return errmap.Map(d.Name(), err)
}

// checkKeys applies the rules of the table's backend to keys given on
// their own.
func (t *Table[T]) checkKeys(pk, rk string) error {
	prof := t.handle().Profile()
	if err := codec.CheckKey(prof, "PartitionKey", pk); err != nil {
		return err
	}
	return codec.CheckKey(prof, "RowKey", rk)
}

// resultOf reads the Timestamp out of the ETag: a write that returns no
// entity carries it only there.
func metaOf(etag azcore.ETag) Meta {
	return Meta{ETag: etag, Timestamp: wire.TimestampFromETag(etag)}
}
