package table

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/internal/core"
	"github.com/tablekit/tablekit/retry"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
)

func TestParseConnectionString(t *testing.T) {
	key := "a2V5a2V5a2V5" // base64 of "keykeykey"
	tests := []struct {
		name, cs string
		want     connString
	}{
		{"dev storage", "UseDevelopmentStorage=true", connString{endpoint: devEndpoint, account: devAccount, key: devKey}},
		{"dev storage proxy", "UseDevelopmentStorage=true;DevelopmentStorageProxyUri=http://10.0.0.5", connString{endpoint: "http://10.0.0.5:10002/devstoreaccount1", account: devAccount, key: devKey}},
		{"dev storage proxy with a port", "UseDevelopmentStorage=true;DevelopmentStorageProxyUri=http://10.0.0.5:20002", connString{endpoint: "http://10.0.0.5:20002/devstoreaccount1", account: devAccount, key: devKey}},
		{"dev storage proxy, IPv6", "UseDevelopmentStorage=true;DevelopmentStorageProxyUri=http://[::1]:20002/", connString{endpoint: "http://[::1]:20002/devstoreaccount1", account: devAccount, key: devKey}},
		{"portal form", "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=" + key + ";EndpointSuffix=core.windows.net", connString{endpoint: "https://acct.table.core.windows.net", account: "acct", key: key}},
		{"no protocol, no suffix", "AccountName=acct;AccountKey=" + key, connString{endpoint: "https://acct.table.core.windows.net", account: "acct", key: key}},
		{"azurite explicit", "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=" + key + ";TableEndpoint=http://127.0.0.1:10002/devstoreaccount1/;", connString{endpoint: "http://127.0.0.1:10002/devstoreaccount1", account: "devstoreaccount1", key: key}},
		{"cosmos", "DefaultEndpointsProtocol=https;AccountName=c;AccountKey=" + key + ";TableEndpoint=https://c.table.cosmos.azure.com:443/;", connString{endpoint: "https://c.table.cosmos.azure.com:443", account: "c", key: key}},
		{"sas", "TableEndpoint=https://acct.table.core.windows.net;SharedAccessSignature=?sv=2019-02-02&sig=abc", connString{endpoint: "https://acct.table.core.windows.net", sas: "sv=2019-02-02&sig=abc"}},
		{"case and spaces", " accountname = acct ; ACCOUNTKEY=" + key + " ;", connString{endpoint: "https://acct.table.core.windows.net", account: "acct", key: key}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseConnectionString(tc.cs)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
	secret := "c2VjcmV0c2VjcmV0" // must never appear in an error
	for _, bad := range []string{"", "AccountName=acct", "AccountKey=" + secret, "garbage;AccountKey=" + secret, "TableEndpoint=::nope;AccountName=a;AccountKey=" + secret} {
		_, err := parseConnectionString(bad)
		if !errors.Is(err, tablekit.ErrInvalid) {
			t.Errorf("parse(%q): err = %v, want tablekit.ErrInvalid", bad, err)
		}
		if err != nil && strings.Contains(err.Error(), secret) {
			t.Errorf("error leaks the key: %v", err)
		}
	}
}

func TestHTTPSRequired(t *testing.T) {
	tests := []struct {
		endpoint string
		allow    bool
		ok       bool
	}{
		{"https://acct.table.core.windows.net", false, true},
		{"http://127.0.0.1:10002/devstoreaccount1", false, true},
		{"http://localhost:10002/devstoreaccount1", false, true},
		{"http://[::1]:10002/devstoreaccount1", false, true},
		{"http://acct.table.core.windows.net", false, false},
		{"http://acct.table.core.windows.net", true, true},
		{"ftp://acct", false, false},
	}
	for _, tc := range tests {
		err := checkScheme(tc.endpoint, &Options{AllowInsecureHTTP: tc.allow})
		if (err == nil) != tc.ok {
			t.Errorf("checkScheme(%q, allow=%v) = %v, want ok=%v", tc.endpoint, tc.allow, err, tc.ok)
		}
	}
	if _, err := NewServiceWithSharedKey("http://example.com", "a", "a2V5", nil); !errors.Is(err, tablekit.ErrInvalid) {
		t.Errorf("plain http to a remote host: err = %v", err)
	}
}

// The tuned transport sets TCP_NODELAY itself, sizes the idle pool to the
// parallelism and never waits for 100-continue.
func TestTunedTransport(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	tr := newHTTPClient(&Options{PoolSize: 100}).Transport.(*http.Transport)
	if tr.MaxIdleConnsPerHost != 100 || tr.ExpectContinueTimeout != 0 || tr.IdleConnTimeout != 30*time.Second {
		t.Errorf("transport: idle per host %d, expect-continue %v, idle timeout %v", tr.MaxIdleConnsPerHost, tr.ExpectContinueTimeout, tr.IdleConnTimeout)
	}
	if def := newHTTPClient(nil).Transport.(*http.Transport); def.MaxIdleConnsPerHost != DefaultPoolSize {
		t.Errorf("default idle per host = %d, want %d", def.MaxIdleConnsPerHost, DefaultPoolSize)
	}
	c, err := tr.DialContext(context.Background(), "tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	raw, err := c.(*net.TCPConn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var nodelay int
	var serr error
	if err := raw.Control(func(fd uintptr) {
		nodelay, serr = syscall.GetsockoptInt(int(fd), syscall.IPPROTO_TCP, syscall.TCP_NODELAY)
	}); err != nil || serr != nil {
		t.Fatal(err, serr)
	}
	if nodelay == 0 {
		t.Errorf("TCP_NODELAY = 0, want set")
	}
}

func TestClientOptionsInstallOneRetryLayer(t *testing.T) {
	o := ClientOptions(nil)
	if o.Retry.MaxRetries != -1 {
		t.Errorf("azcore MaxRetries = %d, want -1 (azcore's retry off)", o.Retry.MaxRetries)
	}
	if got := len(o.PerCallPolicies); got != 3 {
		t.Errorf("per-call policies = %d, want 3 (unsupported calls, no-echo, retry)", got)
	}
	if got := len(ClientOptions(&Options{Retry: &retry.Policy{MaxAttempts: 1}, EchoInserts: true}).PerCallPolicies); got != 2 {
		t.Errorf("one attempt+EchoInserts: per-call policies = %d, want 2 (unsupported calls, retry)", got)
	}
	// The caller's options are not modified.
	base := &Options{}
	base.Azcore.PerCallPolicies = []policy.Policy{core.NoEcho{}}
	_ = ClientOptions(base)
	if len(base.Azcore.PerCallPolicies) != 1 {
		t.Errorf("ClientOptions modified its input")
	}
}

func TestConnectionStringRedacted(t *testing.T) {
	secret := "c2VjcmV0c2VjcmV0"
	cs, err := ParseConnectionString("AccountName=acct;AccountKey=" + secret + ";EndpointSuffix=core.windows.net")
	if err != nil {
		t.Fatal(err)
	}
	if cs.AccountName != "acct" || cs.AccountKey != secret || cs.Endpoint != "https://acct.table.core.windows.net" {
		t.Fatalf("parsed %s (key %d bytes)", cs, len(cs.AccountKey))
	}
	var logged strings.Builder
	slog.New(slog.NewTextHandler(&logged, nil)).Info("connecting", "cs", cs)
	for _, s := range []string{cs.String(), fmt.Sprintf("%v %+v %#v %s", cs, cs, cs, cs), fmt.Sprint(&cs), logged.String()} {
		if strings.Contains(s, secret) {
			t.Errorf("key printed: %s", s)
		}
	}
	dev, err := ParseConnectionString("UseDevelopmentStorage=true")
	if err != nil || dev.Endpoint != devEndpoint || dev.AccountName != devAccount || dev.AccountKey != devKey {
		t.Errorf("dev storage: %s, %v", dev, err)
	}
}

type fakeToken struct{}

func (fakeToken) GetToken(context.Context, policy.TokenRequestOptions) (azcore.AccessToken, error) {
	return azcore.AccessToken{Token: "t", ExpiresOn: time.Now().Add(time.Hour)}, nil
}

func TestNewServiceWithToken(t *testing.T) {
	svc, err := NewServiceWithToken("https://acct.table.core.windows.net/", fakeToken{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if svc.Endpoint() != "https://acct.table.core.windows.net" || (*core.Service)(svc).Conn().PoolSize() != DefaultPoolSize {
		t.Errorf("endpoint %q, parallelism %d", svc.Endpoint(), (*core.Service)(svc).Conn().PoolSize())
	}
	// A bearer token must never travel in clear, not even to loopback.
	if _, err := NewServiceWithToken("http://127.0.0.1:10002/devstoreaccount1", fakeToken{}, nil); !errors.Is(err, tablekit.ErrInvalid) {
		t.Errorf("token over http: err = %v, want tablekit.ErrInvalid", err)
	}
}
