package cosmos_test

import (
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/tablekit/tablekit/devtools/cosmos"
	"github.com/tablekit/tablekit/devtools/testenv"
)

// proxiedClient is the client a process gets from the proxy's Env:
// HTTPS_PROXY as its proxy, SSL_CERT_FILE as its only roots.
func proxiedClient(t *testing.T, p *cosmos.Proxy) *http.Client {
	t.Helper()
	env := map[string]string{}
	for _, kv := range p.Env() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	proxy, err := url.Parse(env["HTTPS_PROXY"])
	if err != nil || !strings.HasPrefix(proxy.Host, "127.0.0.1:") {
		t.Fatalf("HTTPS_PROXY %q: want a loopback URL (%v)", env["HTTPS_PROXY"], err)
	}
	pemBytes, err := os.ReadFile(env["SSL_CERT_FILE"])
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(pemBytes) {
		t.Fatal("SSL_CERT_FILE holds no certificate")
	}
	tr := &http.Transport{Proxy: http.ProxyURL(proxy), TLSClientConfig: &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// TestProxy: through the proxy, with its certificate, a client reaches the
// stand-in under the account's host name; other hosts are refused.
func TestProxy(t *testing.T) {
	env, cs, _ := standIn(t, nil)
	p, err := cs.StartProxy(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	hc := proxiedClient(t, p)
	svc := service(t, env, cs.Endpoint(), hc)
	c := newAzTable(t, svc)
	if _, err := c.AddEntity(testenv.Ctx(t), []byte(`{"PartitionKey":"p","RowKey":"r"}`), nil); err != nil {
		t.Fatalf("add through the proxy: %v", err)
	}
	if got := cs.Stats().Requests; got == 0 {
		t.Errorf("the stand-in saw no request")
	}
	for _, host := range []string{"https://example.com/", "https://devstoreaccount1.table.core.windows.net/"} {
		resp, err := hc.Get(host)
		if err == nil {
			resp.Body.Close()
			t.Errorf("%s through the proxy: got %s, want a refused tunnel", host, resp.Status)
		}
	}
}
