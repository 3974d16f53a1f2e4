package core

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit/internal/backend"
	"github.com/tablekit/tablekit/internal/codec"
	"github.com/tablekit/tablekit/internal/opdesc"
	"github.com/tablekit/tablekit/internal/txwire"
)

// sent is a request as the transport got it.
type sent struct {
	method, url string
	header      http.Header
	body        []byte
	length      int64 // ContentLength: what net/http sends as Content-Length
}

// canned records every request and answers each with the same reply.
type canned struct {
	mu     sync.Mutex
	got    []sent
	status int
	header http.Header
	body   string
}

func (c *canned) Do(r *http.Request) (*http.Response, error) {
	var b []byte
	if r.Body != nil {
		b, _ = io.ReadAll(r.Body)
	}
	c.mu.Lock()
	c.got = append(c.got, sent{r.Method, r.URL.String(), r.Header.Clone(), b, r.ContentLength})
	c.mu.Unlock()
	return &http.Response{StatusCode: c.status, Header: c.header.Clone(), Body: io.NopCloser(strings.NewReader(c.body)), Request: r}, nil
}

func (c *canned) take() []sent {
	c.mu.Lock()
	defer c.mu.Unlock()
	got := c.got
	c.got = nil
	return got
}

// stable drops what differs by design: the time of the request, its
// signature (neither client signs here) and the User-Agent.
func stable(h http.Header) http.Header {
	h = h.Clone()
	for _, k := range []string{"User-Agent", "X-Ms-Date", "Authorization"} {
		delete(h, k)
	}
	return h
}

func sameJSON(a, b []byte) bool {
	var x, y map[string]any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

// endpoints are the forms a service is reached by: the service's host
// names, Azurite's path-style account, a service SAS and a table SAS (as
// aztables parses a table SAS URL), Cosmos DB.
var endpoints = []struct {
	name string
	// service is the URL aztables' service client is given; table, when
	// set, is the table URL its table client is given instead.
	service, table string
}{
	{"service", "https://acct.table.core.windows.net", ""},
	{"azurite", "http://127.0.0.1:10002/devstoreaccount1", ""},
	{"service SAS", "https://acct.table.core.windows.net/?sv=2019-02-02&ss=t&srt=sco&sp=rwdlacu&se=2030-01-01T00%3A00%3A00Z&sig=a%2Bb%3D", ""},
	{"table SAS", "", "http://127.0.0.1:10002/devstoreaccount1/mytable?sv=2019-02-02&tn=mytable&sp=raud&sig=x%2By%3D&se=2030-01-01T00%3A00%3A00Z"},
	{"cosmos", "https://acct.table.cosmos.azure.com", ""},
}

var keys = [][2]string{
	{"p", "r"},
	{"O'Brien", "it''s"},
	{"Zoë 日本 €", "emoji \U0001F600"},
	{"a+b%20c", "(x)&y=z;k,@!*$~"},
	{"sp ace", "tab\tand..dots"},
}

// pair opens the same table twice on one canned transport: with aztables
// (a client with no credential, so nothing signs) and on the pipeline
// path, both with the no-echo policy, as package table installs it.
func pair(t *testing.T, ep string, tableURL string, reply *canned) (*aztables.Client, *Table) {
	t.Helper()
	o := &aztables.ClientOptions{}
	o.Transport, o.Retry = reply, policy.RetryOptions{MaxRetries: -1}
	o.PerCallPolicies = []policy.Policy{NoEcho{}}
	var c *aztables.Client
	endpoint := ep
	if tableURL != "" {
		var err error
		if c, err = aztables.NewClientWithNoCredential(tableURL, o); err != nil {
			t.Fatal(err)
		}
		u, _ := url.Parse(tableURL)
		endpoint = txwire.EndpointOf(u)
	} else {
		s, err := aztables.NewServiceClientWithNoCredential(ep, o)
		if err != nil {
			t.Fatal(err)
		}
		c = s.NewClient("mytable")
	}
	pl := runtime.NewPipeline("tablekit", "v0.0.0", runtime.PipelineOptions{}, &policy.ClientOptions{Transport: reply, Retry: policy.RetryOptions{MaxRetries: -1}, PerCallPolicies: []policy.Policy{NoEcho{}}})
	plan, err := codec.For(reflect.TypeFor[struct{ PartitionKey, RowKey string }](), codec.Types{})
	if err != nil {
		t.Fatal(err)
	}
	return c, NewTable(NewConn(Config{Pipeline: pl, Endpoint: endpoint, Profile: backend.Of(backend.Detect(endpoint))}), c, "mytable", plan)
}

// entityOp describes an operation of kind k on the entity pk, rk of tb.
func entityOp(tb *Table, k opdesc.Kind, pk, rk string, merge bool) opdesc.Desc {
	d := tb.Describe(k)
	d.PartitionKey, d.RowKey, d.Merge = pk, rk, merge
	return d
}

// TestRequestsMatchAztables: every data request of the pipeline path is
// the request aztables sends for the same call: method, URL (escaping
// included), headers (their spelling included) and, where aztables does
// not re-encode the entity, the body.
func TestRequestsMatchAztables(t *testing.T) {
	ctx := context.Background()
	etag := azcore.ETag(`W/"datetime'2024-03-01T08%3A00%3A00.1234567Z'"`)
	for _, ep := range endpoints {
		t.Run(ep.name, func(t *testing.T) {
			reply := &canned{status: http.StatusBadRequest, header: http.Header{}}
			c, tb := pair(t, ep.service, ep.table, reply)
			for _, k := range keys {
				pk, rk := k[0], k[1]
				entity := fmt.Appendf(nil, `{"PartitionKey":%q,"RowKey":%q,"N@odata.type":"Edm.Int64","N":"5"}`, pk, rk)
				calls := []struct {
					name     string
					aztables func()
					tablekit func()
					sameBody bool
				}{
					{"get", func() { _, _ = c.GetEntity(ctx, pk, rk, nil) }, func() { _, _, _ = tb.Get(ctx, entityOp(tb, opdesc.Get, pk, rk, false)) }, true},
					{"insert", func() { _, _ = c.AddEntity(ctx, entity, nil) }, func() {
						buf := EntityBuffer() // the pooled body Table.Add sends
						_, _ = tb.Insert(ctx, entityOp(tb, opdesc.Insert, pk, rk, false), append((*buf)[:0], entity...), buf)
					}, false},
					{"upsert merge", func() {
						_, _ = c.UpsertEntity(ctx, entity, &aztables.UpsertEntityOptions{UpdateMode: aztables.UpdateModeMerge})
					}, func() { _, _ = tb.Write(ctx, entityOp(tb, opdesc.Upsert, pk, rk, true), Write{Entity: entity}) }, false},
					{"upsert replace", func() {
						_, _ = c.UpsertEntity(ctx, entity, &aztables.UpsertEntityOptions{UpdateMode: aztables.UpdateModeReplace})
					}, func() { _, _ = tb.Write(ctx, entityOp(tb, opdesc.Upsert, pk, rk, false), Write{Entity: entity}) }, false},
					{"update merge", func() {
						_, _ = c.UpdateEntity(ctx, entity, &aztables.UpdateEntityOptions{UpdateMode: aztables.UpdateModeMerge, IfMatch: &etag})
					}, func() {
						_, _ = tb.Write(ctx, entityOp(tb, opdesc.Update, pk, rk, true), Write{Entity: entity, IfMatch: &etag})
					}, false},
					{"update replace", func() {
						_, _ = c.UpdateEntity(ctx, entity, &aztables.UpdateEntityOptions{UpdateMode: aztables.UpdateModeReplace, IfMatch: &etag})
					}, func() {
						_, _ = tb.Write(ctx, entityOp(tb, opdesc.Update, pk, rk, false), Write{Entity: entity, IfMatch: &etag})
					}, false},
					{"delete", func() { _, _ = c.DeleteEntity(ctx, pk, rk, &aztables.DeleteEntityOptions{IfMatch: &etag}) }, func() { _ = tb.Delete(ctx, entityOp(tb, opdesc.Delete, pk, rk, false), etag) }, true},
				}
				for _, call := range calls {
					call.aztables()
					call.tablekit()
					got := reply.take()
					if len(got) != 2 {
						t.Fatalf("%s %q/%q: %d requests, want 2", call.name, pk, rk, len(got))
					}
					checkSame(t, fmt.Sprintf("%s %q/%q", call.name, pk, rk), got[0], got[1], call.sameBody)
					if !call.sameBody && !bytes.Equal(got[1].body, entity) {
						t.Errorf("%s: sent %s, want the entity as encoded: %s", call.name, got[1].body, entity)
					}
				}
			}
			filter, sel := "PartitionKey eq 'O''Brien' and RowKey ge 'ü&x=1'", "N,RowKey"
			next := "1!12!T+/=ü"
			for _, q := range []PageQuery{
				{Top: 1000},
				{Filter: &filter, Select: &sel, Top: 7, NextPartitionKey: &next, NextRowKey: &next},
				{Filter: &filter, NextPartitionKey: &next},
			} {
				o := &aztables.ListEntitiesOptions{Filter: q.Filter, Select: q.Select, NextPartitionKey: q.NextPartitionKey, NextRowKey: q.NextRowKey}
				if q.Top > 0 {
					o.Top = &q.Top
				}
				_, _ = c.NewListEntitiesPager(o).NextPage(ctx)
				_, _ = tb.Page(ctx, tb.Describe(opdesc.QueryPage), q)
				got := reply.take()
				checkSame(t, fmt.Sprintf("page %+v", q), got[0], got[1], true)
			}
			// A transaction: its body is txwire's (tested there); the
			// request around it is aztables'.
			op := TxOp{Type: aztables.TransactionTypeInsertMerge, PartitionKey: "p", RowKey: "r", Entity: []byte(`{"PartitionKey":"p","RowKey":"r"}`)}
			part, err := tb.EncodeOp(op)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = c.SubmitTransaction(ctx, []aztables.TransactionAction{{ActionType: op.Type, Entity: op.Entity}}, nil)
			_, _ = tb.Submit(ctx, tb.Describe(opdesc.Transaction), []TxPart{part})
			got := reply.take()
			for i := range got {
				ct := got[i].header.Get("Content-Type")
				if !strings.HasPrefix(ct, "multipart/mixed; boundary=batch_") {
					t.Errorf("transaction %d: Content-Type %q", i, ct)
				}
				got[i].header.Del("Content-Type")
			}
			checkSame(t, "transaction", got[0], got[1], false)
			if len(got[0].body) != len(got[1].body) {
				t.Errorf("transaction: %d bytes, aztables sent %d", len(got[1].body), len(got[0].body))
			}
		})
	}
}

func checkSame(t *testing.T, name string, want, got sent, sameBody bool) {
	t.Helper()
	if got.method != want.method || got.url != want.url {
		t.Errorf("%s: got %s %s\n                 want %s %s", name, got.method, got.url, want.method, want.url)
	}
	if got.length != int64(len(got.body)) {
		t.Errorf("%s: Content-Length %d sent for a body of %d bytes", name, got.length, len(got.body))
	}
	// The length goes out from ContentLength: tablekit's writes carry no
	// Content-Length header (core's setBody).
	gh, wh := stable(got.header), stable(want.header)
	delete(gh, "Content-Length")
	delete(wh, "Content-Length")
	if !reflect.DeepEqual(gh, wh) {
		t.Errorf("%s: got headers %v\nwant %v", name, gh, wh)
	}
	if sameBody && !bytes.Equal(got.body, want.body) || !sameBody && !sameJSON(got.body, want.body) && !bytes.HasPrefix(want.body, []byte("--batch_")) {
		t.Errorf("%s: got body %s\nwant %s", name, got.body, want.body)
	}
}

// TestReplies: the pipeline path reads each reply as aztables does: the
// ETag, the body, the continuation, and a failure as an
// *azcore.ResponseError.
func TestReplies(t *testing.T) {
	ctx := context.Background()
	etagHeader := http.Header{"Etag": {`W/"x"`}}
	tests := []struct {
		name     string
		reply    *canned
		call     func(*Table) (any, error)
		want     any
		wantCode int // of the *azcore.ResponseError; 0 for success
	}{
		{"get", &canned{status: 200, header: etagHeader, body: `{"PartitionKey":"p"}`}, func(tb *Table) (any, error) {
			b, e, err := tb.Get(ctx, entityOp(tb, opdesc.Get, "p", "r", false))
			return string(b) + " " + string(e), err
		}, `{"PartitionKey":"p"} W/"x"`, 0},
		{"get missing", &canned{status: 404, header: http.Header{"Content-Type": {"application/json"}}, body: `{"odata.error":{"code":"ResourceNotFound"}}`}, func(tb *Table) (any, error) {
			_, _, err := tb.Get(ctx, entityOp(tb, opdesc.Get, "p", "r", false))
			return nil, err
		}, nil, 404},
		{"insert, no echo", &canned{status: 204, header: etagHeader}, func(tb *Table) (any, error) {
			return tb.Insert(ctx, entityOp(tb, opdesc.Insert, "p", "r", false), []byte(`{}`), nil)
		}, azcore.ETag(`W/"x"`), 0},
		{"insert, echo", &canned{status: 201, header: etagHeader, body: `{"PartitionKey":"p"}`}, func(tb *Table) (any, error) {
			return tb.Insert(ctx, entityOp(tb, opdesc.Insert, "p", "r", false), []byte(`{}`), nil)
		}, azcore.ETag(`W/"x"`), 0},
		{"insert conflict", &canned{status: 409, header: http.Header{"X-Ms-Error-Code": {"EntityAlreadyExists"}}}, func(tb *Table) (any, error) {
			return tb.Insert(ctx, entityOp(tb, opdesc.Insert, "p", "r", false), []byte(`{}`), nil)
		}, azcore.ETag(""), 409},
		{"write", &canned{status: 204, header: etagHeader}, func(tb *Table) (any, error) {
			return tb.Write(ctx, entityOp(tb, opdesc.Upsert, "p", "r", false), Write{Entity: []byte(`{}`)})
		}, azcore.ETag(`W/"x"`), 0},
		{"write 200 is no success", &canned{status: 200, header: etagHeader}, func(tb *Table) (any, error) {
			return tb.Write(ctx, entityOp(tb, opdesc.Upsert, "p", "r", false), Write{Entity: []byte(`{}`)})
		}, azcore.ETag(""), 200},
		{"delete", &canned{status: 204}, func(tb *Table) (any, error) {
			return nil, tb.Delete(ctx, entityOp(tb, opdesc.Delete, "p", "r", false), "*")
		}, nil, 0},
		{"delete precondition", &canned{status: 412}, func(tb *Table) (any, error) {
			return nil, tb.Delete(ctx, entityOp(tb, opdesc.Delete, "p", "r", false), "*")
		}, nil, 412},
		{"page with continuation", &canned{status: 200, header: http.Header{"X-Ms-Continuation-Nextpartitionkey": {"1!4!cA--"}, "X-Ms-Continuation-Nextrowkey": {"1!4!cg--"}}, body: `{"value":[]}`}, func(tb *Table) (any, error) {
			pg, err := tb.Page(ctx, tb.Describe(opdesc.QueryPage), PageQuery{Top: 1})
			return fmt.Sprintf("%s %v %v", pg.Body, *pg.NextPartitionKey, *pg.NextRowKey), err
		}, `{"value":[]} 1!4!cA-- 1!4!cg--`, 0},
		{"last page", &canned{status: 200, header: http.Header{"X-Ms-Continuation-Nextpartitionkey": {""}}, body: `{"value":[]}`}, func(tb *Table) (any, error) {
			pg, err := tb.Page(ctx, tb.Describe(opdesc.QueryPage), PageQuery{Top: 1})
			return pg.NextPartitionKey == nil && pg.NextRowKey == nil, err
		}, true, 0},
		{"transaction", &canned{status: 202, body: "--batchresponse_x--"}, func(tb *Table) (any, error) {
			resp, err := tb.Submit(ctx, tb.Describe(opdesc.Transaction), nil)
			return resp.StatusCode, err
		}, 202, 0},
		{"transaction refused", &canned{status: 403}, func(tb *Table) (any, error) {
			resp, err := tb.Submit(ctx, tb.Describe(opdesc.Transaction), nil)
			return resp.StatusCode, err
		}, 403, 403},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, tb := pair(t, "https://acct.table.core.windows.net", "", tt.reply)
			got, err := tt.call(tb)
			var re *azcore.ResponseError
			switch {
			case tt.wantCode == 0 && err != nil:
				t.Fatalf("error %v, want none", err)
			case tt.wantCode != 0 && (!errors.As(err, &re) || re.StatusCode != tt.wantCode):
				t.Fatalf("error %v, want an *azcore.ResponseError %d", err, tt.wantCode)
			}
			if tt.want != nil && got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// TestSingleAttemptMarked: a transaction submitted once carries the mark
// the retry policy reads; one submitted normally does not.
func TestSingleAttemptMarked(t *testing.T) {
	for _, once := range []bool{true, false} {
		var marked bool
		spy := policyFunc(func(req *policy.Request) (*http.Response, error) {
			marked = opdesc.Of(req).SendOnce
			return req.Next()
		})
		reply := &canned{status: 202}
		pl := runtime.NewPipeline("tablekit", "v0.0.0", runtime.PipelineOptions{PerCall: []policy.Policy{spy}}, &policy.ClientOptions{Transport: reply})
		plan, _ := codec.For(reflect.TypeFor[struct{ PartitionKey, RowKey string }](), codec.Types{})
		tb := NewTable(NewConn(Config{Pipeline: pl, Endpoint: "https://acct.table.core.windows.net", Profile: backend.Of(backend.TableStorage)}), &aztables.Client{}, "t", plan)
		d := tb.Describe(opdesc.Transaction)
		d.SendOnce = once
		if _, err := tb.Submit(context.Background(), d, nil); err != nil {
			t.Fatal(err)
		}
		if marked != once {
			t.Errorf("once %v: marked %v", once, marked)
		}
	}
}

type policyFunc func(*policy.Request) (*http.Response, error)

func (f policyFunc) Do(req *policy.Request) (*http.Response, error) { return f(req) }

// TestEncodeOpKeepsNoEntity: a caller may reuse an entity's bytes once
// EncodeOp returns (batch encodes every entity into one buffer), on the
// pipeline path and the aztables path alike: the body sent holds the
// entity as it was when encoded.
func TestEncodeOpKeepsNoEntity(t *testing.T) {
	ctx := context.Background()
	reply := &canned{status: http.StatusBadRequest, header: http.Header{}}
	c, pipelined := pair(t, "https://acct.table.core.windows.net", "", reply)
	paths := []struct {
		name string
		tb   *Table
	}{
		{"pipeline", pipelined},
		{"aztables", WrapClient(c, "mytable", pipelined.Plan())},
	}
	for _, p := range paths {
		t.Run(p.name, func(t *testing.T) {
			buf := []byte(`{"PartitionKey":"p","RowKey":"r","V":"first"}`)
			part, err := p.tb.EncodeOp(TxOp{Type: aztables.TransactionTypeInsertReplace, PartitionKey: "p", RowKey: "r", Entity: buf})
			if err != nil {
				t.Fatal(err)
			}
			copy(buf, `{"PartitionKey":"p","RowKey":"r","V":"later"}`)
			_, _ = p.tb.Submit(ctx, p.tb.Describe(opdesc.Transaction), []TxPart{part})
			got := reply.take()
			if len(got) != 1 {
				t.Fatalf("%d requests, want 1", len(got))
			}
			if body := got[0].body; !bytes.Contains(body, []byte(`"first"`)) || bytes.Contains(body, []byte(`"later"`)) {
				t.Errorf("got body %s, want the entity as encoded (V first)", body)
			}
		})
	}
}
