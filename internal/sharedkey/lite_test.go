package sharedkey

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
)

const devKey = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="

// capture records every request aztables sends and answers 400, so that
// each call returns at once.
type capture struct {
	mu   sync.Mutex
	reqs []*http.Request
}

func (c *capture) Do(r *http.Request) (*http.Response, error) {
	c.mu.Lock()
	c.reqs = append(c.reqs, r)
	c.mu.Unlock()
	return &http.Response{StatusCode: http.StatusBadRequest, Header: http.Header{}, Body: io.NopCloser(strings.NewReader("")), Request: r}, nil
}

// fixedDate gives every request the same x-ms-date before aztables signs it.
type fixedDate struct{}

func (fixedDate) Do(req *policy.Request) (*http.Response, error) {
	req.Raw().Header.Set("x-ms-date", "Fri, 01 Mar 2024 08:00:00 GMT")
	return req.Next()
}

// calls makes every kind of request aztables sends with a table client c
// and a service client s: entity paths with quotes, non-ASCII and reserved
// characters in their keys, queries, and the requests with comp= (access
// policies, service properties and stats).
func calls(ctx context.Context, s *aztables.ServiceClient, c *aztables.Client) {
	keys := []string{"p", "O'Brien", "Zoë 日本 €", "a+b%20c", "(x)&y=z", "~!*$;,@'' "}
	for _, k := range keys {
		_, _ = c.GetEntity(ctx, k, k+"r", nil)
		_, _ = c.DeleteEntity(ctx, k, "r", nil)
		body := fmt.Appendf(nil, `{"PartitionKey":%q,"RowKey":"r","N":1}`, k)
		_, _ = c.AddEntity(ctx, body, nil)
		_, _ = c.UpsertEntity(ctx, body, &aztables.UpsertEntityOptions{UpdateMode: aztables.UpdateModeMerge})
		etag := azcore.ETag(`W/"datetime'2024-03-01T08%3A00%3A00Z'"`)
		_, _ = c.UpdateEntity(ctx, body, &aztables.UpdateEntityOptions{UpdateMode: aztables.UpdateModeReplace, IfMatch: &etag})
	}
	filter, sel, top := "PartitionKey eq 'O''Brien' and RowKey ge 'ü'", "N,RowKey", int32(7)
	next := "1!8!cA--"
	_, _ = c.NewListEntitiesPager(&aztables.ListEntitiesOptions{Filter: &filter, Select: &sel, Top: &top, NextPartitionKey: &next, NextRowKey: &next}).NextPage(ctx)
	_, _ = c.GetAccessPolicy(ctx, nil)
	_, _ = c.SetAccessPolicy(ctx, nil)
	_, _ = c.SubmitTransaction(ctx, []aztables.TransactionAction{{ActionType: aztables.TransactionTypeAdd, Entity: []byte(`{"PartitionKey":"p","RowKey":"r"}`)}}, nil)
	_, _ = s.GetProperties(ctx, nil)
	_, _ = s.GetStatistics(ctx, nil)
	_, _ = s.NewListTablesPager(nil).NextPage(ctx)
	_, _ = s.CreateTable(ctx, "created", nil)
	_, _ = s.DeleteTable(ctx, "created", nil)
}

// TestSignLiteMatchesAztables signs every request aztables sends, on the
// service's host names and on Azurite's path-style account (its secondary
// too), and compares the Authorization header with aztables' own.
func TestSignLiteMatchesAztables(t *testing.T) {
	endpoints := []string{
		"https://acct.table.core.windows.net",
		"http://127.0.0.1:10002/devstoreaccount1",
		"http://127.0.0.1:10002/devstoreaccount1-secondary",
		"https://acct.table.cosmos.azure.com",
	}
	key, err := New("devstoreaccount1", devKey)
	if err != nil {
		t.Fatal(err)
	}
	for _, ep := range endpoints {
		t.Run(ep, func(t *testing.T) {
			tr := &capture{}
			cred, err := aztables.NewSharedKeyCredential("devstoreaccount1", devKey)
			if err != nil {
				t.Fatal(err)
			}
			o := &aztables.ClientOptions{}
			o.Transport, o.Retry = tr, policy.RetryOptions{MaxRetries: -1}
			o.PerCallPolicies = []policy.Policy{fixedDate{}}
			s, err := aztables.NewServiceClientWithSharedKey(ep, cred, o)
			if err != nil {
				t.Fatal(err)
			}
			calls(context.Background(), s, s.NewClient("mytable"))
			if len(tr.reqs) < 30 {
				t.Fatalf("aztables sent %d requests, want every call's", len(tr.reqs))
			}
			for _, r := range tr.reqs {
				want := r.Header.Get("Authorization")
				mine := r.Clone(context.Background())
				mine.Header.Del("Authorization")
				if err := key.SignLite(mine); err != nil {
					t.Fatalf("%s %s: %v", r.Method, r.URL, err)
				}
				if got := mine.Header.Get("Authorization"); got != want || want == "" {
					t.Errorf("%s %s:\n got %s\nwant %s", r.Method, r.URL, got, want)
				}
			}
		})
	}
}

func TestSignLiteSetsDate(t *testing.T) {
	key, err := New("acct", devKey)
	if err != nil {
		t.Fatal(err)
	}
	// The second request of the same second takes the date made for the
	// first: it must still be now.
	for i := range 2 {
		r, _ := http.NewRequest(http.MethodGet, "https://acct.table.core.windows.net/t()", nil)
		before := time.Now().UTC().Truncate(time.Second)
		if err := key.SignLite(r); err != nil {
			t.Fatal(err)
		}
		d, err := http.ParseTime(r.Header.Get("x-ms-date"))
		if err != nil || d.Before(before) || d.After(time.Now().Add(time.Second)) {
			t.Errorf("request %d: x-ms-date %q (%v), want now", i, r.Header.Get("x-ms-date"), err)
		}
		if got := r.Header.Get("Authorization"); !strings.HasPrefix(got, "SharedKeyLite acct:") {
			t.Errorf("request %d: Authorization %q, want SharedKeyLite acct:...", i, got)
		}
	}
	bad, _ := http.NewRequest(http.MethodGet, "https://acct.table.core.windows.net/t()", nil)
	bad.URL.RawQuery = "sig=secret%zz"
	if err := key.SignLite(bad); err == nil || strings.Contains(err.Error(), "secret") {
		t.Errorf("a query that does not parse: error %v, want one that does not quote it", err)
	}
}

func TestKeyNeverShown(t *testing.T) {
	key, err := New("acct", devKey)
	if err != nil {
		t.Fatal(err)
	}
	outs := []string{key.String(), fmt.Sprintf("%v %+v %#v %s %x", key, key, key, key, key), fmt.Sprintf("%+v %#v", struct{ k Key }{*key}, struct{ k Key }{*key})}
	for _, s := range outs {
		if strings.Contains(s, devKey[:12]) || strings.Contains(s, fmt.Sprintf("%x", key.secret.b)[:12]) {
			t.Errorf("key shown: %s", s)
		}
	}
	if _, err := New("acct", "not*base64*"+devKey[:8]); err == nil || strings.Contains(err.Error(), devKey[:8]) {
		t.Errorf("bad key: error %v, want one without the key", err)
	}
}

// appendResource copies a path that needs no escaping as it is; every
// other path goes through EscapedPath. Both must give what EscapedPath
// gives.
func TestResourcePathAsEscapedPath(t *testing.T) {
	for _, raw := range []string{
		"http://h/acct/bench", "http://h/acct/Tables", "http://h/acct/$batch", "http://h/acct/bench()",
		"http://h/acct/bench(PartitionKey='p',RowKey='r')", "http://h/acct/t(PartitionKey='Zo%C3%AB',RowKey='a%2Bb')",
		"http://h/acct/a;b=c@d:e&f+g,h~i", "http://h", "http://h/acct/sp%20ace", "http://h/acct/q%3Fmark",
	} {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		got, err := CanonicalizedResource("acct", u)
		if err != nil {
			t.Fatal(err)
		}
		p := u.EscapedPath()
		if p == "" {
			p = "/"
		}
		if want := "/acct" + p; got != want {
			t.Errorf("%s: got %q, want %q", raw, got, want)
		}
	}
}

// The HMACs a key pools are reset between signatures: the same string
// signs the same, however many signatures came before, from any goroutine.
func TestSignReusesHMAC(t *testing.T) {
	k, err := New("acct", devKey)
	if err != nil {
		t.Fatal(err)
	}
	want := k.Sign("GET\n/acct/t")
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 100; i++ {
				if i%2 == 0 {
					k.Sign("other")
					continue
				}
				if got := k.Sign("GET\n/acct/t"); got != want {
					t.Errorf("got %q, want %q", got, want)
					return
				}
			}
		}()
	}
	wg.Wait()
}
