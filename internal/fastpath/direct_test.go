package fastpath

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/tracing"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
)

// canned answers every request with one reply and records what was sent.
type canned struct {
	status int
	header http.Header
	body   string
	sent   []*http.Request
	bodies []string
}

func (c *canned) Do(r *http.Request) (*http.Response, error) {
	b, _ := io.ReadAll(r.Body)
	c.sent, c.bodies = append(c.sent, r), append(c.bodies, string(b))
	h := c.header.Clone()
	return &http.Response{StatusCode: c.status, Header: h, Body: io.NopCloser(strings.NewReader(c.body)), Request: r}, nil
}

// TestInserterSendsWhatAddEntitySends: on every kind of client, an insert
// without AddEntity sends the same request (URL, headers, body) and gets the
// same ETag or error as AddEntity of the same bytes.
func TestInserterSendsWhatAddEntitySends(t *testing.T) {
	key, err := aztables.NewSharedKeyCredential("acct", "a2V5")
	if err != nil {
		t.Fatal(err)
	}
	// Each client with the endpoint its table passes: the URL aztables
	// was given, as txwire.EndpointOf reads a table URL.
	clients := map[string]struct {
		endpoint string
		open     func(*aztables.ClientOptions) (*aztables.Client, error)
	}{
		"shared key": {"https://acct.table.core.windows.net", func(o *aztables.ClientOptions) (*aztables.Client, error) {
			return aztables.NewClientWithSharedKey("https://acct.table.core.windows.net/t1", key, o)
		}},
		"table SAS": {"http://127.0.0.1:10002/acct/?sig=x%2By&sp=a&sv=2019-02-02&tn=t1", func(o *aztables.ClientOptions) (*aztables.Client, error) {
			return aztables.NewClientWithNoCredential("http://127.0.0.1:10002/acct/t1?sv=2019-02-02&tn=t1&sig=x%2By&sp=a", o)
		}},
		"token": {"https://acct.table.core.windows.net", func(o *aztables.ClientOptions) (*aztables.Client, error) {
			return aztables.NewClient("https://acct.table.core.windows.net/t1", fakeToken{}, o)
		}},
		"service SAS": {"https://acct.table.core.windows.net/?sv=2019-02-02&ss=t&sig=z", func(o *aztables.ClientOptions) (*aztables.Client, error) {
			s, err := aztables.NewServiceClientWithNoCredential("https://acct.table.core.windows.net/?sv=2019-02-02&ss=t&sig=z", o)
			if err != nil {
				return nil, err
			}
			return s.NewClient("t1"), nil
		}},
	}
	replies := []struct {
		name   string
		status int
		header http.Header
		body   string
	}{
		{"no echo", http.StatusNoContent, http.Header{"Etag": {`W/"datetime'2024-03-01T08%3A00%3A00Z'"`}, "Date": {"Fri, 01 Mar 2024 08:00:00 GMT"}}, ""},
		{"echo", http.StatusCreated, http.Header{"Etag": {`W/"x"`}, "Content-Type": {"application/json"}}, `{"PartitionKey":"p","RowKey":"r"}`},
		{"echo not JSON", http.StatusCreated, http.Header{"Etag": {`W/"x"`}}, `{"PartitionKey":`},
		{"bad Date", http.StatusNoContent, http.Header{"Date": {"yesterday"}}, ""},
		{"conflict", http.StatusConflict, http.Header{"Content-Type": {"application/json"}}, `{"odata.error":{"code":"EntityAlreadyExists","message":{"value":"exists"}}}`},
	}
	body := []byte(`{"PartitionKey":"p","RowKey":"r","N":1}`)
	for name, cl := range clients {
		for _, rp := range replies {
			t.Run(name+"/"+rp.name, func(t *testing.T) {
				tr := &canned{status: rp.status, header: rp.header, body: rp.body}
				o := &aztables.ClientOptions{}
				o.Transport = tr
				o.Retry = policy.RetryOptions{MaxRetries: -1}
				spans := &recorder{}
				o.TracingProvider = spans.provider()
				c, err := cl.open(o)
				if err != nil {
					t.Fatal(err)
				}
				in, ok := NewInserter(c, cl.endpoint, "t1")
				if !ok {
					t.Fatal("NewInserter found no pipeline: aztables' layout changed")
				}
				var n atomic.Int64
				ctx := Counting(context.Background(), &n)
				resp, wantErr := c.AddEntity(context.Background(), body, nil)
				wantSpans := spans.take()
				gotETag, gotErr := in.Insert(ctx, body)
				if gotSpans := spans.take(); !reflect.DeepEqual(gotSpans, wantSpans) || len(gotSpans) < 2 {
					t.Errorf("got spans %q, want %q", gotSpans, wantSpans)
				}
				if n.Load() != 1 {
					t.Errorf("counted %d swaps, want 1", n.Load())
				}
				if len(tr.sent) != 2 {
					t.Fatalf("sent %d requests, want 2", len(tr.sent))
				}
				want, got := tr.sent[0], tr.sent[1]
				if got.Method != want.Method || got.URL.String() != want.URL.String() {
					t.Errorf("got %s %s, want %s %s", got.Method, got.URL, want.Method, want.URL)
				}
				if !reflect.DeepEqual(stable(got.Header), stable(want.Header)) {
					t.Errorf("got headers %v\nwant %v", stable(got.Header), stable(want.Header))
				}
				if (got.Header.Get("Authorization") == "") != (want.Header.Get("Authorization") == "") {
					t.Errorf("got Authorization %q, want one like %q", got.Header.Get("Authorization"), want.Header.Get("Authorization"))
				}
				if tr.bodies[1] != string(body) || !sameJSON(tr.bodies[0], tr.bodies[1]) {
					t.Errorf("sent %s, AddEntity sent %s", tr.bodies[1], tr.bodies[0])
				}
				if gotETag != resp.ETag {
					t.Errorf("got ETag %q, want %q", gotETag, resp.ETag)
				}
				if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
					t.Errorf("got error %v, want %v", gotErr, wantErr)
				}
				var re *azcore.ResponseError
				if errors.As(wantErr, &re) && !errors.As(gotErr, &re) {
					t.Errorf("got error %T, want an *azcore.ResponseError", gotErr)
				}
			})
		}
	}
}

// stable drops the headers that differ between two requests by design: the
// time of signing and its signature.
func stable(h http.Header) http.Header {
	h = h.Clone()
	for _, k := range []string{"Authorization", "X-Ms-Date", "x-ms-date"} {
		delete(h, k)
	}
	return h
}

// sameJSON reports whether a and b are the same JSON object, in any order
// of its properties (AddEntity re-encodes a map: sorted).
func sameJSON(a, b string) bool {
	var x, y map[string]any
	return json.Unmarshal([]byte(a), &x) == nil && json.Unmarshal([]byte(b), &y) == nil && reflect.DeepEqual(x, y)
}

// recorder records the spans of a client: name and error status.
type recorder struct{ got []string }

func (r *recorder) provider() tracing.Provider {
	return tracing.NewProvider(func(string, string) tracing.Tracer {
		return tracing.NewTracer(func(ctx context.Context, name string, _ *tracing.SpanOptions) (context.Context, tracing.Span) {
			i := len(r.got)
			r.got = append(r.got, name)
			return ctx, tracing.NewSpan(tracing.SpanImpl{SetStatus: func(code tracing.SpanStatus, _ string) {
				r.got[i] += fmt.Sprintf(" status %d", code)
			}})
		}, nil)
	}, nil)
}

func (r *recorder) take() []string {
	got := r.got
	r.got = nil
	return got
}

type fakeToken struct{}

func (fakeToken) GetToken(context.Context, policy.TokenRequestOptions) (azcore.AccessToken, error) {
	return azcore.AccessToken{Token: "t", ExpiresOn: time.Now().Add(time.Hour)}, nil
}
