package core

import (
	"bytes"
	"context"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/tracing"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/internal/opdesc"
	"github.com/tablekit/tablekit/internal/payload"
	"github.com/tablekit/tablekit/internal/spans"
	"github.com/tablekit/tablekit/internal/txwire"
	"github.com/tablekit/tablekit/internal/wire"
)

// apiVersion is the x-ms-version of every data request: the REST API
// version aztables v1.4.1 speaks.
const apiVersion = "2019-02-02"

// spanName is the span of an operation's request: aztables' own names, so
// traces read as before.
func spanName(d opdesc.Desc) string {
	switch d.Kind {
	case opdesc.Get:
		return "Client.GetEntity"
	case opdesc.Insert:
		return "Client.AddEntity"
	case opdesc.Upsert:
		return "Client.UpsertEntity"
	case opdesc.Update:
		return "Client.UpdateEntity"
	case opdesc.Delete:
		return "Client.DeleteEntity"
	case opdesc.QueryPage:
		return "Pager[ListEntitiesResponse].NextPage"
	case opdesc.Transaction:
		return "Client.SubmitTransaction"
	}
	return "Client." + d.Name()
}

// startSpan starts the span of an operation's request: named as aztables
// names it, with the table, partition and entity count the description
// carries. Nothing is built when tracing is off.
func (p *pipelinePath) startSpan(ctx context.Context, d opdesc.Desc) (context.Context, func(error)) {
	if !p.tracer.Enabled() {
		return ctx, func(error) {}
	}
	attrs := make([]tracing.Attribute, 1, 3)
	attrs[0] = tracing.Attribute{Key: spans.Table, Value: d.Table}
	if d.PartitionKey != "" {
		attrs = append(attrs, tracing.Attribute{Key: spans.Partition, Value: d.PartitionKey})
	}
	if d.Entities > 0 {
		attrs = append(attrs, tracing.Attribute{Key: spans.Entities, Value: d.Entities})
	}
	return runtime.StartSpan(ctx, spanName(d), p.tracer, &runtime.StartSpanOptions{Attributes: attrs})
}

// retryOff switches azcore's own retry policy off on ctx for the request d
// describes, as tablekit's retry policy would for each attempt, and says
// so in d (opdesc.Desc.RetryOff): that policy's first attempt is then the
// request itself, not a copy on another context.
func retryOff(ctx context.Context, d *opdesc.Desc) context.Context {
	d.RetryOff = true
	return policy.WithRetryOptions(ctx, policy.RetryOptions{MaxRetries: -1})
}

// pipelinePath builds each data request as aztables v1.4.1's generated
// client builds the same one (zz_table_client.go, transactional_batch.go)
// and sends it on the service's pipeline. URLs are joined with
// runtime.JoinPaths and parsed by runtime.NewRequest as aztables does, so
// they are escaped the same way; tests compare them with aztables' bytes.
type pipelinePath struct {
	// pl sends reads, wpl writes (Config.Writes).
	pl, wpl  runtime.Pipeline
	tracer   tracing.Tracer
	endpoint string
	table    string
	// sas is the endpoint's query (the SAS), and query its encoding as
	// aztables sets it on requests without parameters of their own.
	sas   url.Values
	query string
	// The URLs that do not depend on the request: Insert Entity's, Query
	// Entities' (parameters apart) and $batch's; the first and the last
	// also parsed once (nil when they do not parse).
	tableURL, pageURL, batchURL string
	tableAt, batchAt            *fixedURL
	// mergeAsPost: the backend takes a merge as POST with X-HTTP-Method:
	// MERGE (Cosmos DB, as aztables' cosmosPatchTransformPolicy sends it).
	mergeAsPost bool
	sizer       *txwire.Sizer
	ua          string // User-Agent (Config.UserAgent)
	// prefer is an insert's Prefer header: return-no-content unless
	// Config.EchoInserts ("").
	prefer string
}

func newPipelinePath(c *Conn, table string) *pipelinePath {
	p := &pipelinePath{pl: c.pl, wpl: c.wpl, tracer: c.tracer, endpoint: c.endpoint, table: table, mergeAsPost: c.profile.MergeAsPost, ua: c.ua}
	if !c.echo {
		p.prefer = preferNoContent
	}
	if u, err := url.Parse(c.endpoint); err == nil {
		p.sas = u.Query()
		p.query = p.sas.Encode()
	} // else every request fails in runtime.NewRequest with the URL's error
	p.tableURL = runtime.JoinPaths(c.endpoint, "/"+url.PathEscape(table))
	p.pageURL = runtime.JoinPaths(c.endpoint, "/"+url.PathEscape(table)+"()")
	p.batchURL = runtime.JoinPaths(c.endpoint, "$batch")
	p.tableAt, p.batchAt = parseFixed(p.tableURL), parseFixed(p.batchURL)
	if p.tableAt != nil {
		p.tableAt.u.RawQuery = p.query // as request sets it
	}
	p.sizer = txwire.NewSizer(c.endpoint, table, p.mergeAsPost)
	return p
}

// entityURL is the URL of one entity. aztables doubles single quotes in the
// keys (prepareKey, OData's quoting as in wire.QuoteString) and escapes
// them as path segments; its transactions do not double them (txwire).
func (p *pipelinePath) entityURL(pk, rk string) string {
	return runtime.JoinPaths(p.endpoint, "/"+url.PathEscape(p.table)+
		"(PartitionKey='"+url.PathEscape(strings.ReplaceAll(pk, "'", "''"))+
		"',RowKey='"+url.PathEscape(strings.ReplaceAll(rk, "'", "''"))+"')")
}

// request makes a request with the headers every data request has, and
// the endpoint's query re-encoded as aztables sets it.
func (p *pipelinePath) request(ctx context.Context, d opdesc.Desc, method, rawURL, accept string) (*policy.Request, error) {
	req, err := runtime.NewRequest(ctx, method, rawURL)
	if err != nil {
		return nil, err
	}
	opdesc.Set(req, d)
	r := req.Raw()
	r.URL.RawQuery = p.query
	r.Header = newHeader(singleKeys, accept, p.ua, "")
	return req, nil
}

// fixedURL is a request URL that does not change from one request to the
// next, parsed once: a request on it copies the URL rather than parsing
// its text again (fixedRequest).
type fixedURL struct {
	u    url.URL
	host string // http.Request.Host, as http.NewRequest sets it
}

// parseFixed parses rawURL as runtime.NewRequest does; nil when that
// fails, so that each request fails there with the URL's own error.
func parseFixed(rawURL string) *fixedURL {
	r, err := http.NewRequest(http.MethodGet, rawURL, nil)
	if err != nil || r.URL.Host == "" || (r.URL.Scheme != "http" && r.URL.Scheme != "https") {
		return nil
	}
	return &fixedURL{u: *r.URL, host: r.Host}
}

// fixedRequest is runtime.NewRequest(ctx, method, the URL of at) without
// parsing the URL again: the request http.NewRequestWithContext makes,
// on a copy of the parsed URL, and the headers of h. at nil falls back to
// parsing rawURL.
func fixedRequest(ctx context.Context, method string, at *fixedURL, rawURL string, h http.Header) (*policy.Request, error) {
	if at == nil {
		req, err := runtime.NewRequest(ctx, method, rawURL)
		if err != nil {
			return nil, err
		}
		req.Raw().Header = h
		return req, nil
	}
	u := at.u
	r := &http.Request{Method: method, URL: &u, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Header: h, Host: at.host}
	return runtime.NewRequestFromRequest(r.WithContext(ctx))
}

// headerRoom is the size the header map of a data request is made with:
// the headers set before azcore's retry policy clones it (the three of
// newHeader, Content-Type, Prefer, User-Agent) fit in one map group,
// allocated once rather than grown as each is added.
const headerRoom = 8

// headerSet is the header map of an insert and the array of its values,
// pooled: the map and its values were three of an insert's allocations.
// The request's own map is free again when the pipeline returns, since
// azcore's retry policy gives every attempt, and so the transport and the
// response, a copy of it.
type headerSet struct {
	h http.Header
	v [5]string
}

var headerPool = sync.Pool{New: func() any { return &headerSet{h: make(http.Header, headerRoom)} }}

// giveBack empties s and puts it back into the pool.
func (s *headerSet) giveBack() {
	clear(s.h)
	s.v = [5]string{}
	headerPool.Put(s)
}

// preferNoContent is an insert's Prefer header when it asks the service not
// to send the entity back.
const preferNoContent = "return-no-content"

// The keys of x-ms-version, DataServiceVersion and Accept: the generated
// client stores the first two as written, SubmitTransaction sets all three
// with Header.Set (canonical keys).
var (
	singleKeys = [3]string{"x-ms-version", "DataServiceVersion", "Accept"}
	batchKeys  = [3]string{"X-Ms-Version", "Dataserviceversion", "Accept"}
)

// newHeader is the header map of a data request with the headers every one
// has, under keys, the User-Agent ua and Prefer prefer unless empty, their
// values in one slice (one allocation for all).
func newHeader(keys [3]string, accept, ua, prefer string) http.Header {
	return fillHeader(make(http.Header, headerRoom), new([5]string), keys, accept, ua, prefer)
}

// fillHeader is newHeader into the empty map h, with the values in v.
func fillHeader(h http.Header, v *[5]string, keys [3]string, accept, ua, prefer string) http.Header {
	*v = [5]string{apiVersion, "3.0", accept, ua, prefer}
	for i, k := range keys {
		h[k] = v[i : i+1 : i+1]
	}
	if ua != "" {
		h["User-Agent"] = v[3:4:4]
	}
	if prefer != "" {
		h["Prefer"] = v[4:5:5]
	}
	return h
}

// send sends req and returns the response when its status is one of ok,
// else the service's error as an *azcore.ResponseError. A transport error
// loses its URL's query (where a SAS signature lives): without the retry
// policy, which does the same, net/http's error would show it.
func send(pl runtime.Pipeline, req *policy.Request, ok ...int) (*http.Response, error) {
	resp, err := pl.Do(req)
	if err != nil {
		return nil, wire.RedactURLError(err)
	}
	if !runtime.HasStatusCode(resp, ok...) {
		return nil, runtime.NewResponseError(resp)
	}
	return resp, nil
}

// setBody makes b the request's body. The request's description holds the
// bytes too (opdesc.Desc.Body, set by the caller before the request is built), so
// that every attempt of the retry policy reads them through a reader of
// its own.
//
// azcore's SetBody also writes the length as a Content-Length header, which
// net/http does not send (it writes req.ContentLength, which SetBody sets
// too) and which neither Shared Key signature of the Table service covers:
// without it, the headers of an insert or a write, x-ms-date and
// Authorization included, fit the one group of eight a small map holds,
// rather than every attempt's copy of them growing into a table.
func setBody(req *policy.Request, b []byte, contentType string) error {
	r := new(bytesBody)
	r.Reset(b)
	if err := req.SetBody(r, contentType); err != nil {
		return err
	}
	delete(req.Raw().Header, "Content-Length")
	return nil
}

func (p *pipelinePath) get(ctx context.Context, d opdesc.Desc) (body []byte, etag azcore.ETag, err error) {
	ctx, end := p.startSpan(ctx, d)
	defer func() { end(err) }()
	req, err := p.request(ctx, d, http.MethodGet, p.entityURL(d.PartitionKey, d.RowKey), wire.MinimalMetadata)
	if err != nil {
		return nil, "", err
	}
	resp, err := send(p.pl, req, http.StatusOK)
	if err != nil {
		return nil, "", err
	}
	if body, err = runtime.Payload(resp); err != nil {
		return nil, "", err
	}
	return body, azcore.ETag(resp.Header.Get("ETag")), nil
}

// insert sends Insert Entity, with Prefer: return-no-content unless
// Config.EchoInserts (what the no-echo policy, NoEcho, adds to an
// aztables client's inserts). lent, when not nil, is entity's pooled
// buffer (EntityBuffer), taken back as a transaction's body is (lentBody).
func (p *pipelinePath) insert(ctx context.Context, d opdesc.Desc, entity []byte, lent *[]byte) (etag azcore.ETag, err error) {
	ctx, end := p.startSpan(ctx, d)
	ctx = retryOff(ctx, &d)
	defer func() { end(err) }()
	d.Body = entity
	hs := headerPool.Get().(*headerSet)
	defer hs.giveBack()
	req, err := fixedRequest(ctx, http.MethodPost, p.tableAt, p.tableURL, fillHeader(hs.h, &hs.v, singleKeys, wire.MinimalMetadata, p.ua, p.prefer))
	if err != nil {
		return "", err
	}
	if p.tableAt == nil {
		req.Raw().URL.RawQuery = p.query
	}
	var body io.ReadSeekCloser
	if lent != nil {
		lb := new(lentBody)
		lb.r.Reset(entity)
		d.Attempts = &lb.attempts
		defer lb.giveBack(lent, entity, &entityPool, maxPooled)
		body = lb
	} else {
		b := new(bytesBody)
		b.Reset(entity)
		body = b
	}
	opdesc.Set(req, d)
	if err = req.SetBody(body, "application/json"); err != nil {
		return "", err
	}
	delete(req.Raw().Header, "Content-Length") // see setBody
	resp, err := send(p.wpl, req, http.StatusCreated, http.StatusNoContent)
	if err != nil {
		return "", err
	}
	return azcore.ETag(resp.Header.Get("ETag")), nil
}

// EntityBuffer is a buffer for an entity to insert, from the pool Insert
// gives it back to (see pipelinePath.insert).
func EntityBuffer() *[]byte { return entityPool.Get().(*[]byte) }

// entityPool holds the buffers of inserted entities: the largest
// allocation of an insert, made and cleared for every one when it was not
// reused.
var entityPool = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// maxPooled is the largest entity buffer the pool keeps: one large entity
// would otherwise keep its buffer for good.
const maxPooled = 64 << 10

// write sends an upsert or an update (d.Kind): PUT replaces, PATCH merges
// (POST with X-HTTP-Method: MERGE where the backend takes merges so).
func (p *pipelinePath) write(ctx context.Context, d opdesc.Desc, w Write) (etag azcore.ETag, err error) {
	ctx, end := p.startSpan(ctx, d)
	ctx = retryOff(ctx, &d)
	defer func() { end(err) }()
	method := http.MethodPut
	if d.Merge {
		method = http.MethodPatch
		if p.mergeAsPost {
			method = http.MethodPost
		}
	}
	d.Body = w.Entity
	req, err := p.request(ctx, d, method, p.entityURL(d.PartitionKey, d.RowKey), "application/json")
	if err != nil {
		return "", err
	}
	h := req.Raw().Header
	if w.IfMatch != nil {
		h["If-Match"] = []string{string(*w.IfMatch)}
	}
	if d.Merge && p.mergeAsPost {
		h.Set("X-HTTP-Method", "MERGE")
	}
	if err = setBody(req, w.Entity, "application/json"); err != nil {
		return "", err
	}
	resp, err := send(p.wpl, req, http.StatusNoContent)
	if err != nil {
		return "", err
	}
	return azcore.ETag(resp.Header.Get("ETag")), nil
}

func (p *pipelinePath) delete(ctx context.Context, d opdesc.Desc, ifMatch azcore.ETag) (err error) {
	ctx, end := p.startSpan(ctx, d)
	ctx = retryOff(ctx, &d)
	defer func() { end(err) }()
	req, err := p.request(ctx, d, http.MethodDelete, p.entityURL(d.PartitionKey, d.RowKey), wire.MinimalMetadata)
	if err != nil {
		return err
	}
	req.Raw().Header["If-Match"] = []string{string(ifMatch)}
	_, err = send(p.wpl, req, http.StatusNoContent)
	return err
}

func (p *pipelinePath) page(ctx context.Context, d opdesc.Desc, q PageQuery) (pg Page, err error) {
	ctx, end := p.startSpan(ctx, d)
	defer func() { end(err) }()
	req, err := p.request(ctx, d, http.MethodGet, p.pageURL, wire.MinimalMetadata)
	if err != nil {
		return Page{}, err
	}
	v := make(url.Values, len(p.sas)+5)
	for k, vs := range p.sas {
		v[k] = vs
	}
	if q.Top > 0 {
		v.Set("$top", strconv.FormatInt(int64(q.Top), 10))
	}
	if q.Select != nil {
		v.Set("$select", *q.Select)
	}
	if q.Filter != nil {
		v.Set("$filter", *q.Filter)
	}
	if q.NextPartitionKey != nil {
		v.Set("NextPartitionKey", *q.NextPartitionKey)
	}
	if q.NextRowKey != nil {
		v.Set("NextRowKey", *q.NextRowKey)
	}
	req.Raw().URL.RawQuery = v.Encode()
	if d.Read != nil {
		runtime.SkipBodyDownload(req) // read by package payload
	}
	resp, err := send(p.pl, req, http.StatusOK)
	if err != nil {
		return Page{}, err
	}
	if d.Read != nil {
		pg.Body, err = payload.Read(resp, d.SizeHint)
		pg.recycle = true
	} else {
		pg.Body, err = runtime.Payload(resp)
	}
	if err != nil {
		return Page{}, err
	}
	pg.NextPartitionKey = header(resp, "x-ms-continuation-NextPartitionKey")
	pg.NextRowKey = header(resp, "x-ms-continuation-NextRowKey")
	return pg, nil
}

// header is the value of a response header, nil when absent or empty.
func header(resp *http.Response, key string) *string {
	if v := resp.Header.Get(key); v != "" {
		return &v
	}
	return nil
}

func (p *pipelinePath) encode(op TxOp) (TxPart, error) {
	var ifMatch *string
	if op.IfMatch != nil {
		s := string(*op.IfMatch)
		ifMatch = &s
	}
	entity := op.Entity
	if op.Type == aztables.TransactionTypeDelete {
		entity = nil
	}
	wop := txwire.Op{Type: op.Type, PartitionKey: op.PartitionKey, RowKey: op.RowKey, IfMatch: ifMatch, EntityLen: len(entity)}
	if op.Arena != nil {
		part, blk, err := op.Arena.put(p.sizer, wop, entity)
		if err != nil {
			return TxPart{}, badKeys(err)
		}
		return TxPart{part: part, size: txwire.DelimiterLen() + len(part), blk: blk}, nil
	}
	sp := partScratch.Get().(*[]byte)
	defer partScratch.Put(sp)
	b, err := p.sizer.AppendPart((*sp)[:0], wop, entity)
	*sp = b[:0]
	if err != nil {
		return TxPart{}, badKeys(err)
	}
	// The part is kept until its transaction is sent: made once, its size
	// exactly, from a buffer that any room to grow in is reused for the
	// next.
	part := bytes.Clone(b)
	return TxPart{part: part, size: txwire.DelimiterLen() + len(part)}, nil
}

func badKeys(err error) error {
	return &tablekit.ValidationError{Field: "keys", Index: -1, Rule: "make no request URL", Err: err}
}

// partScratch holds the buffers parts are written into before their copy.
var partScratch = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// submit sends the $batch request as aztables' SubmitTransaction builds
// it (its headers set with Header.Set, its URL's query as given), with the
// body txwire writes from the parts. A reply that arrived is returned even
// with an error, as aztables' captured response is.
func (p *pipelinePath) submit(ctx context.Context, d opdesc.Desc, parts []TxPart) (resp *http.Response, err error) {
	ctx, end := p.startSpan(ctx, d)
	ctx = retryOff(ctx, &d)
	defer func() { end(err) }()
	bodies := make([][]byte, len(parts))
	for i := range parts {
		bodies[i] = parts[i].part
	}
	buf := bodyPool.Get().(*[]byte)
	body, contentType := txwire.AppendBody((*buf)[:0], bodies)
	lb := new(lentBody)
	lb.r.Reset(body)
	d.Body, d.Attempts = body, &lb.attempts
	// The retry policy reads the reply's body, as it reads a query page's
	// (package payload: one buffer of its Content-Length), and finds one
	// cut short; batch parses it. azcore's body download grew a buffer
	// from 512 bytes by a quarter at a time: a 100-operation reply was
	// allocated and copied about fifteen times over.
	d.Read, d.SizeHint = readByCaller, txwire.ReplyHint(len(parts))
	defer lb.giveBack(buf, body, &bodyPool, math.MaxInt)
	req, err := fixedRequest(ctx, http.MethodPost, p.batchAt, p.batchURL, newHeader(batchKeys, wire.MinimalMetadata, p.ua, ""))
	if err != nil {
		return nil, err
	}
	opdesc.Set(req, d)
	runtime.SkipBodyDownload(req)
	if err = req.SetBody(lb, contentType); err != nil {
		return nil, err
	}
	// A reply whose body broke comes with its error: the caller reads what
	// arrived.
	if resp, err = p.wpl.Do(req); err != nil {
		return resp, wire.RedactURLError(err)
	}
	if !runtime.HasStatusCode(resp, http.StatusAccepted, http.StatusNoContent) {
		return resp, runtime.NewResponseError(resp)
	}
	return resp, nil
}

// readByCaller accepts a reply's body for the caller to read: a
// transaction's, which is no JSON for the retry policy to check.
func readByCaller([]byte) error { return nil }

// bytesBody is a request body over bytes: one allocation where
// streaming.NopCloser of a bytes.Reader makes two.
type bytesBody struct{ bytes.Reader }

func (*bytesBody) Close() error { return nil }

// bodyPool holds the buffers of transaction bodies: about 1 KB per
// operation, the largest allocation of a transaction, made and cleared for
// every one when it was not reused.
var bodyPool = sync.Pool{New: func() any { return new([]byte) }}

// lentBody is the reader of a transaction body whose buffer goes back to
// bodyPool. net/http may read a request's body after its reply came back
// (a reply that arrived before the whole body was sent), and closes it
// (where it says it is done) only through azcore's wrapper, which keeps
// the close to itself. So the buffer is taken back only when the reader
// was read to its end and never rewound after a read (sent once): done is
// set by the read that returns io.EOF, after every other read of the
// buffer, and loading it orders those reads before the buffer's reuse.
//
// read and again are atomic too: a retry rewinds the reader on the caller's
// goroutine while the transport's writer of the attempt before may still
// be reading it.
type lentBody struct {
	r        bytes.Reader
	read     atomic.Bool // a read has happened since the last rewind
	again    atomic.Bool // rewound after a read: sent more than once
	done     atomic.Bool
	attempts atomic.Int32 // the request's attempts (opdesc.Desc.Attempts)
}

// giveBack puts buf, whose bytes are now bytes, back into pool when
// reusable says so.
func (b *lentBody) giveBack(buf *[]byte, bytes []byte, pool *sync.Pool, limit int) {
	if b.reusable(cap(bytes), limit) {
		*buf = bytes[:0]
		pool.Put(buf)
	}
}

// reusable reports a buffer of capacity size that nothing can read any
// more: one attempt, whose reader the transport read to its end, and no
// larger than limit (a larger one is left to the collector).
func (b *lentBody) reusable(size, limit int) bool {
	return b.attempts.Load() == 1 && b.done.Load() && size <= limit
}

func (b *lentBody) Read(p []byte) (int, error) {
	b.read.Store(true)
	n, err := b.r.Read(p)
	if err == io.EOF && !b.again.Load() {
		b.done.Store(true)
	}
	return n, err
}

func (b *lentBody) Seek(offset int64, whence int) (int64, error) {
	if b.read.Load() {
		b.again.Store(true)
		b.done.Store(false)
	}
	return b.r.Seek(offset, whence)
}

func (b *lentBody) Close() error { return nil }
