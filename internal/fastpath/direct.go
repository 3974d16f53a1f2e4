package fastpath

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"time"
	"unsafe"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/tracing"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit/internal/wire"
)

// Inserter sends an insert of tablekit's bytes through the pipeline that
// aztables built for a client, as AddEntity would send it: the same URL,
// headers, span and response handling, without AddEntity's decoding of the
// entity into a map and re-encoding it (most of an insert's client CPU). The
// pipeline is the client's own, so its policies (tablekit's, the caller's,
// the credential's signing, logging, tracing) all run as for AddEntity.
type Inserter struct {
	pl       runtime.Pipeline
	tracer   tracing.Tracer
	url      string // the request URL as aztables joins it
	rawQuery string // its query as aztables re-encodes it
}

// NewInserter finds the pipeline of c, the client of table whose request
// URLs aztables builds from endpoint (the URL it was given, as
// txwire.EndpointOf reads it), or reports false when c is not laid out as
// the aztables version tablekit was verified with (then inserts go through
// AddEntity and a placeholder). aztables does not export the pipeline; it
// lives in c's generated client, read here once.
func NewInserter(c *aztables.Client, endpoint, table string) (*Inserter, bool) {
	if c == nil {
		return nil, false
	}
	gen := field(reflect.ValueOf(c).Elem(), "client")
	if gen.Kind() != reflect.Pointer || gen.IsNil() || gen.Elem().Kind() != reflect.Struct {
		return nil, false
	}
	internal := field(gen.Elem(), "internal")
	if !internal.IsValid() || internal.Type() != reflect.TypeFor[*azcore.Client]() || internal.IsNil() {
		return nil, false
	}
	ac := internal.Interface().(*azcore.Client)
	// As aztables' generated InsertEntityCreateRequest builds it.
	joined := runtime.JoinPaths(endpoint, strings.ReplaceAll("/{table}", "{table}", url.PathEscape(table)))
	u, err := url.Parse(joined)
	if err != nil {
		return nil, false
	}
	return &Inserter{pl: ac.Pipeline(), tracer: ac.Tracer(), url: joined, rawQuery: u.Query().Encode()}, true
}

// field is the named field of struct value v, readable although
// unexported; the zero Value when there is none.
func field(v reflect.Value, name string) reflect.Value {
	f := v.FieldByName(name)
	if !f.IsValid() || !f.CanAddr() {
		return reflect.Value{}
	}
	return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
}

// Insert sends body (an entity's JSON, PartitionKey and RowKey included) as
// aztables' AddEntity does and returns the ETag, or AddEntity's error: the
// pipeline's as it is, an *azcore.ResponseError for a status other than 201
// and 204. The call counts as a swap for Counting.
func (in *Inserter) Insert(ctx context.Context, body []byte) (etag azcore.ETag, err error) {
	ctx, endSpan := runtime.StartSpan(ctx, "Client.AddEntity", in.tracer, nil)
	defer func() { endSpan(err) }()
	req, err := runtime.NewRequest(ctx, http.MethodPost, in.url)
	if err != nil {
		return "", err
	}
	r := req.Raw()
	r.URL.RawQuery = in.rawQuery
	r.Header["x-ms-version"] = []string{"2019-02-02"}
	r.Header["DataServiceVersion"] = []string{"3.0"}
	r.Header["Accept"] = []string{wire.MinimalMetadata}
	if err = req.SetBody(streaming.NopCloser(bytes.NewReader(body)), "application/json"); err != nil {
		return "", err
	}
	count(ctx)
	resp, err := in.pl.Do(req)
	if err != nil {
		return "", err
	}
	if !runtime.HasStatusCode(resp, http.StatusCreated, http.StatusNoContent) {
		err = runtime.NewResponseError(resp)
		return "", err
	}
	if err = insertReply(resp); err != nil {
		return "", err
	}
	return azcore.ETag(resp.Header.Get("ETag")), nil
}

// insertReply fails on what aztables' handling of an insert's reply fails
// on: a Date header that does not parse, an echoed entity that is no JSON
// object.
func insertReply(resp *http.Response) error {
	if val := resp.Header.Get("Date"); val != "" {
		if _, err := time.Parse(time.RFC1123, val); err != nil {
			return err
		}
	}
	var echo map[string]any
	return runtime.UnmarshalAsJSON(resp, &echo)
}
