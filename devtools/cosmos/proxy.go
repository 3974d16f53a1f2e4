package cosmos

import (
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Proxy lets another process, such as the tablekit command run by a test,
// reach the stand-in: an HTTP CONNECT proxy on 127.0.0.1 that tunnels the
// account's Cosmos DB host names (and no other) to the stand-in, and the
// stand-in's certificate in a PEM file. Go's net/http reads the proxy from
// HTTPS_PROXY and crypto/x509 the roots from SSL_CERT_FILE; Env sets both,
// so the process reaches Endpoint as a client of Client does.
type Proxy struct {
	s        *Server
	ln       net.Listener
	srv      *http.Server
	certFile string

	mu      sync.Mutex
	tunnels map[net.Conn]bool
	wg      sync.WaitGroup
}

// StartProxy starts a Proxy, writing the certificate into dir (a test's
// temporary directory). Close it before the stand-in.
func (s *Server) StartProxy(dir string) (*Proxy, error) {
	certFile := filepath.Join(dir, "cosmos-stand-in.pem")
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.certDER})
	if err := os.WriteFile(certFile, pemBytes, 0o600); err != nil {
		return nil, fmt.Errorf("cosmos: proxy: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("cosmos: proxy: listen: %w", err)
	}
	p := &Proxy{s: s, ln: ln, certFile: certFile, tunnels: map[net.Conn]bool{}}
	p.srv = &http.Server{Handler: http.HandlerFunc(p.connect), ErrorLog: log.New(io.Discard, "", 0), ReadHeaderTimeout: time.Minute}
	go func() { _ = p.srv.Serve(ln) }()
	return p, nil
}

// Env is the environment that sends a process's HTTPS requests through the
// proxy and makes it trust the stand-in's certificate (and nothing else).
func (p *Proxy) Env() []string {
	return []string{"HTTPS_PROXY=http://" + p.ln.Addr().String(), "https_proxy=", "NO_PROXY=", "no_proxy=", "SSL_CERT_FILE=" + p.certFile, "SSL_CERT_DIR="}
}

// connect serves a CONNECT request: a tunnel to the stand-in for the
// account's hosts on port 443, a refusal for anything else.
func (p *Proxy) connect(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodConnect {
		http.Error(w, "the stand-in's proxy only tunnels (CONNECT)", http.StatusMethodNotAllowed)
		return
	}
	if err := p.s.resolve(r.Host); err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	up, err := net.DialTimeout("tcp", p.s.addr, 10*time.Second)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	down, rw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		up.Close()
		return
	}
	if !p.track(down, up) {
		return
	}
	_, _ = down.Write([]byte("HTTP/1.1 200 Connection established\r\n\r\n"))
	pipe := func(dst net.Conn, src io.Reader) {
		defer p.wg.Done()
		_, _ = io.Copy(dst, src)
		// Either side ending ends the tunnel.
		p.untrack(down, up)
	}
	p.wg.Add(2)
	go pipe(up, rw) // the client's bytes, some of them already buffered
	go pipe(down, up)
}

// track registers a tunnel's connections; false (and both closed) when
// the proxy is closing.
func (p *Proxy) track(conns ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tunnels == nil {
		for _, c := range conns {
			c.Close()
		}
		return false
	}
	for _, c := range conns {
		p.tunnels[c] = true
	}
	return true
}

func (p *Proxy) untrack(conns ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range conns {
		c.Close()
		delete(p.tunnels, c)
	}
}

// Close stops the proxy and its tunnels and waits for them.
func (p *Proxy) Close() error {
	err := p.srv.Close()
	p.mu.Lock()
	for c := range p.tunnels {
		c.Close()
	}
	p.tunnels = nil
	p.mu.Unlock()
	p.wg.Wait()
	return err
}
