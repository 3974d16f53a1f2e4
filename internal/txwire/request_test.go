package txwire

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit/internal/backend"
)

// mergeAsPost is how the backend at endpoint takes a merge, for a Sizer of
// it: aztables decides the same from the URL.
func mergeAsPost(endpoint string) bool { return backend.Of(backend.Detect(endpoint)).MergeAsPost }

// captureTransport records request bodies and answers 400, so aztables
// returns at once without parsing a reply.
type captureTransport struct {
	mu     sync.Mutex
	bodies [][]byte
}

func (c *captureTransport) Do(r *http.Request) (*http.Response, error) {
	var b []byte
	if r.Body != nil {
		b, _ = io.ReadAll(r.Body)
	}
	c.mu.Lock()
	c.bodies = append(c.bodies, b)
	c.mu.Unlock()
	return &http.Response{StatusCode: 400, Status: "400 Bad Request", Header: http.Header{}, Body: io.NopCloser(strings.NewReader("")), Request: r}, nil
}

func (c *captureTransport) last() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bodies[len(c.bodies)-1]
}

const devKey = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="

func newClient(t *testing.T, rawURL string, sas bool, tr policy.Transporter) *aztables.Client {
	t.Helper()
	opts := &aztables.ClientOptions{ClientOptions: azcore.ClientOptions{Transport: tr, Retry: policy.RetryOptions{MaxRetries: -1}}}
	if sas {
		c, err := aztables.NewClientWithNoCredential(rawURL, opts)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	cred, err := aztables.NewSharedKeyCredential("devstoreaccount1", devKey)
	if err != nil {
		t.Fatal(err)
	}
	c, err := aztables.NewClientWithSharedKey(rawURL, cred, opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func ptr(s string) *string { return &s }

// TestSizerExact compares the computed size with the body aztables really
// sends, for every operation type, awkward keys and values, and the
// endpoint forms (path-style emulator, SAS query, Cosmos DB).
func TestSizerExact(t *testing.T) {
	endpoints := []struct {
		name string
		url  string // table URL
		sas  bool
	}{
		{"azurite", "http://127.0.0.1:10002/devstoreaccount1/mytable", false},
		{"service", "https://acct.table.core.windows.net/mytable", false},
		{"sas", "https://acct.table.core.windows.net/mytable?sv=2019-02-02&tn=mytable&sp=raud&se=2030-01-01T00%3A00%3A00Z&sig=abc%2Bdef%3D", true},
		{"cosmos", "https://acct.table.cosmos.azure.com/mytable", false},
	}
	keys := []struct{ pk, rk string }{
		{"p", "r"},
		{"O'Brien", "a b+c%d"},
		{"über 日本", "emoji \U0001F600 (x) [y] {z} * ! $ & ; = @ , ~"},
		{"pk", ""},
	}
	entity := func(pk, rk string) []byte {
		// Properties in an order encoding/json changes, characters it
		// escapes differently, numbers it writes differently.
		return []byte(`{"Z":"<tag> & \u2028","PartitionKey":` + quote(pk) + `,"RowKey":` + quote(rk) +
			`,"D":1.0,"D@odata.type":"Edm.Double","E":1e21,"I":123,"B":"AAEC","B@odata.type":"Edm.Binary","N":null,"T":true}`)
	}
	types := []aztables.TransactionType{
		aztables.TransactionTypeAdd, aztables.TransactionTypeInsertMerge, aztables.TransactionTypeInsertReplace,
		aztables.TransactionTypeUpdateMerge, aztables.TransactionTypeUpdateReplace, aztables.TransactionTypeDelete,
	}
	etags := []*string{nil, ptr("*"), ptr(`W/"datetime'2024-01-02T03%3A04%3A05.1234567Z'"`)}

	for _, ep := range endpoints {
		t.Run(ep.name, func(t *testing.T) {
			tr := &captureTransport{}
			c := newClient(t, ep.url, ep.sas, tr)
			u, err := url.Parse(ep.url)
			if err != nil {
				t.Fatal(err)
			}
			s := NewSizer(EndpointOf(u), "mytable", mergeAsPost(ep.url))
			var actions []aztables.TransactionAction
			want := Envelope()
			for _, k := range keys {
				for _, typ := range types {
					for _, et := range etags {
						if typ == aztables.TransactionTypeAdd && et != nil {
							continue
						}
						// aztables gets the entity as it is; its length on
						// the wire is that of the canonical form.
						raw := entity(k.pk, k.rk)
						n, err := CanonicalLen(raw)
						if err != nil {
							t.Fatal(err)
						}
						op := Op{Type: typ, PartitionKey: k.pk, RowKey: k.rk, IfMatch: et, EntityLen: n}
						a := aztables.TransactionAction{ActionType: typ, Entity: raw}
						if typ == aztables.TransactionTypeDelete {
							a.Entity = KeysJSON(k.pk, k.rk)
						}
						if et != nil {
							e := azcore.ETag(*et)
							a.IfMatch = &e
						}
						// One operation alone, then all of them together.
						n, err = s.OpSize(op)
						if err != nil {
							t.Fatal(err)
						}
						_, _ = c.SubmitTransaction(context.Background(), []aztables.TransactionAction{a}, nil)
						if got, want := len(tr.last()), Envelope()+n; got != want {
							t.Errorf("%s %q/%q etag %v: computed %d bytes, aztables sent %d\n%s", typ, k.pk, k.rk, et != nil, want, got, tr.last())
						}
						actions = append(actions, a)
						want += n
					}
				}
			}
			_, _ = c.SubmitTransaction(context.Background(), actions, nil)
			if got := len(tr.last()); got != want {
				t.Errorf("%d operations: computed %d bytes, aztables sent %d", len(actions), want, got)
			}
		})
	}
}

func quote(s string) string {
	var b bytes.Buffer
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// TestCanonicalIsFixedPoint: aztables re-encodes what it is given; the
// canonical form must come back unchanged, or the size would be wrong.
func TestCanonicalIsFixedPoint(t *testing.T) {
	for _, in := range []string{
		`{"PartitionKey":"p","RowKey":"r","A":"<&>","B":0.1,"C":1e-7,"D":123456789012,"E":"\u2028\ud83d\ude00","F":[1,{"x":2}]}`,
		"{\"PartitionKey\":\"p\",\"RowKey\":\"r\",\"X\":\"invalid \xff utf8\"}",
	} {
		once, err := Canonical([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		twice, err := Canonical(once)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(once, twice) {
			t.Errorf("Canonical is not a fixed point:\n%s\n%s", once, twice)
		}
	}
	if _, err := Canonical([]byte(`[1]`)); err == nil {
		t.Error("Canonical accepted a JSON array")
	}
}

// TestFallbackEndpointIsUpperBound: sizes computed without the real
// endpoint are never smaller than the real ones.
func TestFallbackEndpointIsUpperBound(t *testing.T) {
	real := NewSizer("https://acct.table.core.windows.net/?se=2030-01-01&sig=abcdefghijklmnopqrstuvwxyz0123456789&sp=raud&sv=2019-02-02", "mytable", false)
	fb := NewSizer(FallbackEndpoint(), "mytable", true)
	for _, typ := range []aztables.TransactionType{aztables.TransactionTypeAdd, aztables.TransactionTypeInsertMerge, aztables.TransactionTypeUpdateMerge, aztables.TransactionTypeDelete, aztables.TransactionTypeInsertReplace} {
		op := Op{Type: typ, PartitionKey: "p", RowKey: "r", EntityLen: len(`{"PartitionKey":"p","RowKey":"r"}`)}
		a, err := real.OpSize(op)
		if err != nil {
			t.Fatal(err)
		}
		b, err := fb.OpSize(op)
		if err != nil {
			t.Fatal(err)
		}
		if b < a {
			t.Errorf("%s: fallback size %d < real size %d", typ, b, a)
		}
	}
}

// TestPlainKeyURLs: the request line of plain keys, cut from a template
// URL, is the one the URL's full making gives, on every endpoint form.
func TestPlainKeyURLs(t *testing.T) {
	endpoints := []string{
		"http://127.0.0.1:10002/devstoreaccount1",
		"http://127.0.0.1:/devstoreaccount1/",
		"https://acct.table.core.windows.net",
		"https://acct.table.core.windows.net/?se=2030-01-01T00%3A00%3A00Z&sig=abc%2Bdef%3D&sp=raud&sv=2019-02-02",
		"https://acct.table.cosmos.azure.com",
		"http://host/a%20b/c'd",
		FallbackEndpoint(),
	}
	keys := []string{"0", "p00", "00000050", "a-b_c.d~E9", ".", "..", "~~", "Z"}
	types := []aztables.TransactionType{
		aztables.TransactionTypeAdd, aztables.TransactionTypeInsertMerge, aztables.TransactionTypeInsertReplace,
		aztables.TransactionTypeUpdateMerge, aztables.TransactionTypeUpdateReplace, aztables.TransactionTypeDelete,
	}
	for _, ep := range endpoints {
		for _, tbl := range []string{"mytable", "T1"} {
			s := NewSizer(ep, tbl, mergeAsPost(ep))
			if s.keyed[0][0] == "" || s.keyed[1][0] == "" || s.addURL == "" {
				t.Errorf("%s: no template URL: %q, add %q", ep, s.keyed, s.addURL)
			}
			slow := *s
			slow.keyed, slow.addURL = [2][2]string{}, ""
			for _, typ := range types {
				for _, pk := range keys {
					for _, rk := range append(keys, "") { // an empty RowKey is plain too
						op := Op{Type: typ, PartitionKey: pk, RowKey: rk}
						got, err := s.appendRequestLine(nil, op)
						if err != nil {
							t.Fatal(err)
						}
						want, err := slow.appendRequestLine(nil, op)
						if err != nil {
							t.Fatal(err)
						}
						if string(got) != string(want) {
							t.Errorf("%s %s %q/%q:\n got %q\nwant %q", ep, typ, pk, rk, got, want)
						}
					}
				}
			}
		}
	}
}

// TestPlainKey: only characters that every step of the URL's making keeps
// are plain.
func TestPlainKey(t *testing.T) {
	for _, tc := range []struct {
		k    string
		want bool
	}{
		{"", true}, {"p00", true}, {"a-b_c.d~E9", true},
		{"a b", false}, {"a/b", false}, {"a'b", false}, {"a%20", false}, {"ü", false}, {"a:b", false}, {"a+b", false},
	} {
		if got := plainKey(tc.k); got != tc.want {
			t.Errorf("plainKey(%q) = %v, want %v", tc.k, got, tc.want)
		}
	}
}
