package cosmos

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"
)

// The host suffixes of Cosmos DB Table API accounts, current and legacy.
const (
	cosmosSuffix = ".table.cosmos.azure.com"
	legacySuffix = ".table.cosmosdb.azure.com"
)

// Client returns an HTTP client that reaches the stand-in under the
// account's Cosmos DB host names, on 127.0.0.1, over TLS it trusts: use it
// as table.Options.Transport or aztables' ClientOptions.Transport. It
// refuses every other host, so a test cannot reach the network through it.
// A name under the Cosmos DB suffixes that is not the account's (such as
// <account>-secondary, which Cosmos DB does not have) fails as an unknown
// host does, and is counted (Stats.Unsupported["secondary"]).
// Each call makes a new connection pool; CloseIdleConnections on its
// Transport releases it.
func (s *Server) Client() *http.Client {
	d := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	tr := &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			if err := s.resolve(addr); err != nil {
				return nil, err
			}
			return d.DialContext(ctx, "tcp", s.addr)
		},
		TLSClientConfig:     &tls.Config{RootCAs: s.roots, MinVersion: tls.VersionTLS12},
		MaxIdleConnsPerHost: 64,
		IdleConnTimeout:     30 * time.Second,
		DisableCompression:  true,
	}
	return &http.Client{Transport: tr}
}

// resolve accepts addr when it is one of the account's hosts on port 443.
func (s *Server) resolve(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	host = strings.ToLower(host)
	label, ok := strings.CutSuffix(host, cosmosSuffix)
	if !ok {
		label, ok = strings.CutSuffix(host, legacySuffix)
	}
	if !ok {
		return fmt.Errorf("cosmos: the stand-in's client reaches only *%s and *%s, not %s", cosmosSuffix, legacySuffix, host)
	}
	if label != strings.ToLower(s.account) {
		if label == strings.ToLower(s.account)+"-secondary" {
			s.unsupported(callSecondary)
		}
		return &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	if port != "443" {
		return fmt.Errorf("cosmos: the stand-in serves %s on port 443, not %s", host, port)
	}
	return nil
}
