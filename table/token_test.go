package table_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/table"
)

// token is a test credential that records the scopes it is asked for.
type token struct {
	mu     sync.Mutex
	scopes []string
}

func (tk *token) GetToken(_ context.Context, o policy.TokenRequestOptions) (azcore.AccessToken, error) {
	tk.mu.Lock()
	defer tk.mu.Unlock()
	tk.scopes = append(tk.scopes, strings.Join(o.Scopes, " "))
	return azcore.AccessToken{Token: "tok", ExpiresOn: time.Now().Add(time.Hour)}, nil
}

// tokenService answers as the service would, recording what was sent.
type tokenService struct {
	mu     sync.Mutex
	body   string
	auth   []string
	entity []byte // what a point get returns
}

func (s *tokenService) Do(r *http.Request) (*http.Response, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.auth = append(s.auth, r.Method+" "+r.Header.Get("Authorization"))
	if r.Body != nil {
		b, _ := io.ReadAll(r.Body)
		s.body = string(b)
	}
	h := http.Header{"Etag": {`W/"datetime'2024-03-01T08%3A00%3A00Z'"`}, "Content-Type": {"application/json"}}
	status, body := http.StatusNoContent, []byte(nil)
	switch {
	case r.Method == http.MethodGet:
		status, body = http.StatusOK, s.entity
	case strings.HasSuffix(r.URL.Path, "/Tables"):
		status = http.StatusCreated
		body = []byte(`{"TableName":"tokens"}`)
	}
	return &http.Response{StatusCode: status, Header: h, Body: io.NopCloser(bytes.NewReader(body)), Request: r}, nil
}

// TestTokenService: with a bearer token, every request (data and
// management alike) carries it, the scope is the one aztables asks for,
// one token serves both, and the entity tablekit encoded is what is sent.
func TestTokenService(t *testing.T) {
	china := cloud.AzureChina
	tests := []struct {
		name, endpoint string
		cloud          cloud.Configuration
		scope          string
	}{
		{"table storage", "https://acct.table.core.windows.net", cloud.Configuration{}, "https://storage.azure.com/.default"},
		{"table storage in another cloud", "https://acct.table.core.chinacloudapi.cn", china, "https://storage.azure.com/.default"},
		{"cosmos", "https://acct.table.cosmos.azure.com", cloud.Configuration{}, "https://cosmos.azure.com/.default"},
		{"cosmos in another cloud", "https://acct.table.cosmos.azure.cn", china, "https://cosmos.azure.cn/.default"},
		{"legacy cosmos host", "https://acct.table.cosmosdb.azure.com", cloud.Configuration{}, "https://cosmos.azure.com/.default"},
	}
	in := Row{PartitionKey: "p", RowKey: "r", V: 5}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := &tokenService{}
			cred := &token{}
			o := &table.Options{Transport: rec}
			o.Azcore.Cloud = tc.cloud
			svc, err := table.NewServiceWithToken(tc.endpoint, cred, o)
			if err != nil {
				t.Fatal(err)
			}
			tb, err := table.New[Row](svc, "tokens")
			if err != nil {
				t.Fatal(err)
			}
			want, _ := tb.Marshal(in)
			rec.entity = want
			ctx := context.Background()
			if err := svc.CreateTable(ctx, tb.Name()); err != nil {
				t.Fatal(err)
			}
			if _, err := tb.Add(ctx, in); err != nil {
				t.Fatal(err)
			}
			if rec.body != string(want) {
				t.Errorf("sent %s, want %s", rec.body, want)
			}
			if got, err := tb.Get(ctx, "p", "r", nil); err != nil || got != in {
				t.Errorf("Get = %+v, %v; want %+v", got, err, in)
			}
			for _, a := range rec.auth {
				if !strings.HasSuffix(a, " Bearer tok") {
					t.Errorf("request %q, want Authorization Bearer tok", a)
				}
			}
			if len(cred.scopes) != 1 || cred.scopes[0] != tc.scope {
				t.Errorf("token requests %q, want one for %q", cred.scopes, tc.scope)
			}
		})
	}
	noTables := cloud.Configuration{ActiveDirectoryAuthorityHost: "https://login.example/", Services: map[cloud.ServiceName]cloud.ServiceConfiguration{}}
	o := &table.Options{}
	o.Azcore.Cloud = noTables
	if _, err := table.NewServiceWithToken("https://acct.table.core.windows.net", &token{}, o); !errors.Is(err, tablekit.ErrInvalid) {
		t.Errorf("a cloud without Azure Tables: error %v, want tablekit.ErrInvalid (aztables refuses it too)", err)
	}
}
