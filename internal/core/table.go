package core

import (
	"context"
	"net/http"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/tracing"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit/internal/backend"
	"github.com/tablekit/tablekit/internal/codec"
	"github.com/tablekit/tablekit/internal/opdesc"
	"github.com/tablekit/tablekit/internal/payload"
)

// Table is one table as tablekit reaches it. The zero Table is not usable
// (Usable reports it); package table checks that before any other call.
type Table struct {
	name    string
	plan    *codec.Plan
	client  *aztables.Client
	data    dataPath
	profile *backend.Profile
	tracer  tracing.Tracer
	pool    int
}

// dataPath sends a table's data-plane requests: pipelinePath builds them
// itself, aztablesPath goes through an aztables client's public methods.
// Each takes the operation's description (opdesc.Desc), made where the
// call started: its keys address the entity, and the pipeline path carries
// it with the request for the retry policy and the rate limiter.
type dataPath interface {
	get(ctx context.Context, d opdesc.Desc) ([]byte, azcore.ETag, error)
	insert(ctx context.Context, d opdesc.Desc, entity []byte, lent *[]byte) (azcore.ETag, error)
	write(ctx context.Context, d opdesc.Desc, w Write) (azcore.ETag, error)
	delete(ctx context.Context, d opdesc.Desc, ifMatch azcore.ETag) error
	page(ctx context.Context, d opdesc.Desc, q PageQuery) (Page, error)
	encode(op TxOp) (TxPart, error)
	submit(ctx context.Context, d opdesc.Desc, parts []TxPart) (*http.Response, error)
}

// NewTable returns the named table of the service c connects to, whose
// entities plan maps. client is the aztables client of the same table on
// the same transport, for management calls and table.Table.Client.
func NewTable(c *Conn, client *aztables.Client, name string, plan *codec.Plan) *Table {
	return &Table{name: name, plan: plan, client: client, data: newPipelinePath(c, name), profile: &c.profile, tracer: c.tracer, pool: c.pool}
}

// WrapClient returns the table of an aztables client that tablekit did not
// build: its data requests go through the client's public methods. It has
// no tracer, no known pool size, and the profile of an unknown backend
// (backend.Unknown): aztables does not expose the client's endpoint.
func WrapClient(client *aztables.Client, name string, plan *codec.Plan) *Table {
	p := backend.Unknown()
	return &Table{name: name, plan: plan, client: client, data: newAztablesPath(client), profile: &p}
}

// WithPlan returns the same table with entities of another type.
func (t *Table) WithPlan(plan *codec.Plan) *Table {
	c := *t
	c.plan = plan
	return &c
}

// Usable reports a Table made by NewTable or WrapClient.
func (t *Table) Usable() bool {
	return t != nil && t.client != nil && t.plan != nil && t.data != nil && t.profile != nil
}

// Name is the table's name; "" for a nil Table.
func (t *Table) Name() string {
	if t == nil {
		return ""
	}
	return t.name
}

// Plan maps the table's entity type.
func (t *Table) Plan() *codec.Plan { return t.plan }

// Profile is the profile of the table's backend: every limit a request to
// it is checked against. Never nil for a usable Table.
func (t *Table) Profile() *backend.Profile { return t.profile }

// Client is the aztables client of the table; nil for a nil Table.
func (t *Table) Client() *aztables.Client {
	if t == nil {
		return nil
	}
	return t.client
}

// Tracer starts tablekit's spans for the table: the service's, or the
// disabled tracer (WrapClient, nil).
func (t *Table) Tracer() tracing.Tracer {
	if t == nil {
		return tracing.Tracer{}
	}
	return t.tracer
}

// PoolSize is the transport's idle pool per host; 0 when unknown.
func (t *Table) PoolSize() int {
	if t == nil {
		return 0
	}
	return t.pool
}

// Describe starts the description of an operation on the table: its kind
// and the table's name.
func (t *Table) Describe(k opdesc.Kind) opdesc.Desc { return opdesc.Desc{Kind: k, Table: t.name} }

// Get reads the entity d addresses (d.Kind is opdesc.Get): its JSON as the
// service sent it and its ETag. A missing entity is the service's 404, an
// *azcore.ResponseError.
func (t *Table) Get(ctx context.Context, d opdesc.Desc) ([]byte, azcore.ETag, error) {
	return t.data.get(ctx, d)
}

// Insert adds entity, the entity's JSON with its keys, and returns its ETag.
// lent, when not nil, is the buffer of EntityBuffer that holds entity:
// Insert takes it, and gives it back to the pool when nothing can read it
// any more.
func (t *Table) Insert(ctx context.Context, d opdesc.Desc, entity []byte, lent *[]byte) (azcore.ETag, error) {
	return t.data.insert(ctx, d, entity, lent)
}

// Write is the body and condition of an upsert or an update; d, the
// operation's description, says which, whether it merges, and the keys.
type Write struct {
	// Entity is the entity's JSON, keys included.
	Entity []byte
	// IfMatch is an update's condition (an ETag or "*"); nil for an upsert.
	IfMatch *azcore.ETag
}

// Write sends w and returns the new ETag.
func (t *Table) Write(ctx context.Context, d opdesc.Desc, w Write) (azcore.ETag, error) {
	return t.data.write(ctx, d, w)
}

// Delete removes the entity d addresses if its ETag matches ifMatch (an
// ETag or "*").
func (t *Table) Delete(ctx context.Context, d opdesc.Desc, ifMatch azcore.ETag) error {
	return t.data.delete(ctx, d, ifMatch)
}

// PageQuery is one Query Entities request.
type PageQuery struct {
	// Filter and Select are $filter and $select; nil sends none.
	Filter, Select *string
	// Top is $top, the most entities the page may hold; 0 sends none.
	Top int32
	// NextPartitionKey and NextRowKey are the continuation to start at;
	// nil for the first page.
	NextPartitionKey, NextRowKey *string
}

// Page is one Query Entities reply.
type Page struct {
	// Body is the page as the service sent it
	// ({"odata.metadata":...,"value":[...]}); codec.PageEntities reads it.
	Body []byte
	// NextPartitionKey and NextRowKey are the continuation after the page;
	// nil when the reply had none (or an empty one).
	NextPartitionKey, NextRowKey *string
	// recycle: Body is a buffer of package payload's, which Recycle may
	// give back.
	recycle bool
}

// Recycle gives the page's body buffer back for a later page's reply, once
// everything decoded from it is copied out; Body is nil after it.
func (p *Page) Recycle() {
	if p.recycle {
		payload.Recycle(p.Body)
	}
	p.Body, p.recycle = nil, false
}

// Page fetches one page of a query (d.Kind is opdesc.QueryPage).
func (t *Table) Page(ctx context.Context, d opdesc.Desc, q PageQuery) (Page, error) {
	return t.data.page(ctx, d, q)
}
