package cosmos

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/tablekit/tablekit/internal/backend"
)

// Order is how the stand-in orders query results.
type Order int

const (
	// Seeded orders every query's results by a hash of each entity's keys
	// and the seed: not by key, but the same on every read, so a test can
	// re-read a page and get the same entities in the same order.
	Seeded Order = iota
	// Changing gives every query started without a continuation a new
	// order, and a continuation read again gives what is left from there in
	// a new order, which the continuations of that read follow: a page
	// re-read is not the page first read, though following the
	// continuations of one run still returns each entity once, whatever
	// other runs read meanwhile.
	Changing
)

// Options configure a stand-in; nil and zero fields mean defaults.
type Options struct {
	// Order of query results; default Seeded.
	Order Order
	// Seed of the order; default 1.
	Seed uint64
	// PageSize is the page of a query without $top; default 1000 (a
	// guess: Cosmos DB documents no default page for the Table API).
	PageSize int
}

// Server is a running stand-in. Its methods are safe for concurrent use.
type Server struct {
	target  *url.URL // Azurite's base URL, http://127.0.0.1:port
	account string   // Azurite's account, the first label of every host
	profile backend.Profile
	opts    Options
	addr    string
	roots   *x509.CertPool
	certDER []byte // the certificate the stand-in serves, for Proxy
	srv     *http.Server
	tr      *http.Transport
	rp      *httputil.ReverseProxy

	serveDone chan struct{}
	handlers  sync.WaitGroup
	closeOnce sync.Once
	closeErr  error

	mu        sync.Mutex
	closed    bool
	counts    map[string]int
	stats     Stats
	throttles []*throttleState
	budget    *bucket
	latency   time.Duration
	queries   queryCache
	querySeq  uint64
}

// Start starts a stand-in on a free port of 127.0.0.1 in front of Azurite's
// table endpoint azurite, path-style with its account
// (http://127.0.0.1:port/devstoreaccount1, testenv's Env.Endpoint). Clients
// reach it as Endpoint() through Client(). o may be nil.
func Start(azurite string, o *Options) (*Server, error) {
	u, err := url.Parse(azurite)
	if err != nil {
		return nil, fmt.Errorf("cosmos: azurite endpoint: %w", err)
	}
	account := strings.Trim(u.Path, "/")
	if u.Scheme != "http" || u.Host == "" || account == "" || strings.Contains(account, "/") {
		return nil, fmt.Errorf("cosmos: azurite endpoint %q is not http://host:port/<account>", azurite)
	}
	var opts Options
	if o != nil {
		opts = *o
	}
	if opts.Seed == 0 {
		opts.Seed = 1
	}
	if opts.PageSize <= 0 {
		opts.PageSize = 1000
	}
	cert, roots, err := newCert()
	if err != nil {
		return nil, fmt.Errorf("cosmos: certificate: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("cosmos: listen: %w", err)
	}
	s := &Server{
		target:    &url.URL{Scheme: u.Scheme, Host: u.Host},
		account:   account,
		profile:   backend.Of(backend.CosmosDB),
		opts:      opts,
		addr:      ln.Addr().String(),
		roots:     roots,
		certDER:   cert.Certificate[0],
		serveDone: make(chan struct{}),
		counts:    map[string]int{},
		stats:     Stats{Unsupported: map[string]int{}},
	}
	s.tr = &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConnsPerHost: 64,
		// Azurite closes idle connections after 5 s; close ours first.
		IdleConnTimeout:    4 * time.Second,
		DisableCompression: true,
	}
	discard := log.New(io.Discard, "", 0)
	s.rp = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(s.target)
			// Azurite takes the account from the host's first label, as
			// written: host names are case-insensitive, account names not.
			pr.Out.Host = strings.ToLower(pr.In.Host)
		},
		Transport:    s.tr,
		ErrorLog:     discard,
		ErrorHandler: s.upstreamFailed,
	}
	s.srv = &http.Server{
		Handler:           http.HandlerFunc(s.serve),
		ErrorLog:          discard,
		ReadHeaderTimeout: time.Minute,
		TLSConfig:         &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12, NextProtos: []string{"http/1.1"}},
	}
	go func() {
		defer close(s.serveDone)
		_ = s.srv.ServeTLS(ln, "", "")
	}()
	return s, nil
}

// Endpoint is the account's Table API endpoint,
// https://<account>.table.cosmos.azure.com.
func (s *Server) Endpoint() string { return "https://" + s.account + cosmosSuffix }

// LegacyEndpoint is the same account under the older host name,
// https://<account>.table.cosmosdb.azure.com.
func (s *Server) LegacyEndpoint() string { return "https://" + s.account + legacySuffix }

// ConnectionString is the account's connection string in the form the
// Azure portal gives for a Table API account, with Azurite's key: the
// stand-in's account and key are the emulator's.
func (s *Server) ConnectionString(key string) string {
	return "DefaultEndpointsProtocol=https;AccountName=" + s.account + ";AccountKey=" + key + ";TableEndpoint=" + s.Endpoint() + ":443/;"
}

// Close stops the stand-in: it closes the listener and every connection and
// waits until every request handler has returned. Safe to call twice.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed = true
		s.mu.Unlock()
		s.closeErr = s.srv.Close()
		s.handlers.Wait()
		<-s.serveDone
		s.tr.CloseIdleConnections()
	})
	return s.closeErr
}

// serve handles one request.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if !s.enter() {
		closeConn(w)
		return
	}
	defer s.handlers.Done()
	s.mu.Lock()
	s.counts[r.Method+" "+r.URL.Path]++
	s.stats.Requests++
	latency := s.latency
	s.mu.Unlock()
	if latency > 0 {
		t := time.NewTimer(latency)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			closeConn(w)
			return
		}
	}

	if call := unsupportedCall(r, s.account); call != "" {
		drain(r)
		s.unsupported(call)
		writeError(w, http.StatusNotImplemented, codeNotImplemented, "The Azure Cosmos DB for Table API does not support this operation ("+call+").")
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		closeConn(w)
		return
	}
	if t, ok := s.throttled(r); ok {
		s.writeThrottle(w, r, body, t)
		return
	}
	p := parsePath(r.URL.Path)
	switch {
	case r.Method == http.MethodPost && p.table == "$batch":
		s.batch(w, r, body)
	case r.Method == http.MethodGet && p.entityQuery():
		s.query(w, r, p)
	case isEntityWrite(r, p):
		s.entityWrite(w, r, p, body)
	case r.Method == http.MethodDelete && p.keyed:
		if f := s.keyRule(p); f != nil {
			s.count(f)
			writeError(w, f.status, f.code, f.message)
			return
		}
		s.forward(w, r, body)
	default:
		s.forward(w, r, body)
	}
}

// maxBody bounds what the stand-in reads of a request body.
const maxBody = 64 << 20

// enter registers a running handler unless the stand-in is closing.
func (s *Server) enter() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.handlers.Add(1)
	return true
}

// SetLatency delays every request by d before it is served, to slow a run
// down (a test that interrupts one); 0 removes it.
func (s *Server) SetLatency(d time.Duration) {
	s.mu.Lock()
	s.latency = d
	s.mu.Unlock()
}
