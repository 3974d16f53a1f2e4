package table_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"

	"github.com/tablekit/tablekit/internal/fastpath"
	"github.com/tablekit/tablekit/table"
)

type token struct{}

func (token) GetToken(context.Context, policy.TokenRequestOptions) (azcore.AccessToken, error) {
	return azcore.AccessToken{Token: "tok", ExpiresOn: time.Now().Add(time.Hour)}, nil
}

// tokenService answers as the service would, recording what was sent.
type tokenService struct {
	body, auth string
	entity     []byte // what a point get returns
}

func (s *tokenService) Do(r *http.Request) (*http.Response, error) {
	s.auth = r.Header.Get("Authorization")
	if r.Body != nil {
		b, _ := io.ReadAll(r.Body)
		s.body = string(b)
	}
	h := http.Header{"Etag": {`W/"datetime'2024-03-01T08%3A00%3A00Z'"`}, "Content-Type": {"application/json"}}
	status, body := http.StatusNoContent, []byte(nil)
	if r.Method == http.MethodGet {
		status, body = http.StatusOK, s.entity
	}
	return &http.Response{StatusCode: status, Header: h, Body: io.NopCloser(bytes.NewReader(body)), Request: r}, nil
}

// TestFastPathToken: with a bearer token, the entity tablekit encoded is
// what is sent, signed, and a point get decodes the downloaded body.
func TestFastPathToken(t *testing.T) {
	in := Row{PartitionKey: "p", RowKey: "r", V: 5}
	tests := []struct {
		name      string
		opts      *table.Options
		wantSwaps int64
	}{
		{"fast path", &table.Options{}, 3},
		{"no fast path", &table.Options{NoFastPath: true}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := &tokenService{}
			tc.opts.Transport = rec
			svc, err := table.NewServiceWithToken("https://acct.table.core.windows.net", token{}, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			tb, err := table.New[Row](svc, "tokens")
			if err != nil {
				t.Fatal(err)
			}
			want, _ := tb.Marshal(in)
			rec.entity = want
			var swaps atomic.Int64
			ctx := fastpath.Counting(context.Background(), &swaps)
			if _, err := tb.Add(ctx, in, nil); err != nil {
				t.Fatal(err)
			}
			if rec.auth != "Bearer tok" {
				t.Errorf("Authorization = %q, want %q", rec.auth, "Bearer tok")
			}
			if tc.wantSwaps > 0 && rec.body != string(want) {
				t.Errorf("sent %s, want %s", rec.body, want)
			}
			if _, err := tb.Upsert(ctx, in, table.Replace); err != nil || strings.Contains(rec.body, "TablekitUnswapped") {
				t.Errorf("upsert sent %s, %v", rec.body, err)
			}
			got, err := tb.Get(ctx, "p", "r", nil)
			if err != nil || got != in {
				t.Errorf("Get = %+v, %v; want %+v", got, err, in)
			}
			if n := swaps.Load(); n != tc.wantSwaps {
				t.Errorf("swaps = %d, want %d", n, tc.wantSwaps)
			}
		})
	}
}

// TestPlaceholderIsRefused: were a placeholder ever sent in place of the
// entity, the service would refuse it rather than store it.
func TestPlaceholderIsRefused(t *testing.T) {
	tb, _ := newTable[Row](t, &table.Options{NoFastPath: true})
	_, err := tb.Client().AddEntity(ctxT(t), fastpath.Placeholder("p", "r"), nil)
	if err == nil {
		t.Fatal("the service stored a placeholder")
	}
	var re *azcore.ResponseError
	if !errors.As(err, &re) || re.StatusCode != http.StatusBadRequest {
		t.Errorf("got %v, want a 400", err)
	}
}
