package faults

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Proxy is a running fault-injecting reverse proxy. Its methods are safe for
// concurrent use.
type Proxy struct {
	target    *url.URL
	srv       *http.Server
	rp        *httputil.ReverseProxy
	tr        *http.Transport
	addr      string
	ctx       context.Context // ends when the proxy closes
	cancel    context.CancelFunc
	serveDone chan struct{}
	handlers  sync.WaitGroup
	conns     atomic.Int64
	closeOnce sync.Once
	closeErr  error

	mu       sync.Mutex
	closed   bool
	rules    []*ruleState
	latency  time.Duration
	rng      *rand.Rand
	counts   map[string]int
	injected int
	// capacity is the busy account's rule (capacity.go), nil when off;
	// capacityLog the last one set, whose arrivals stay readable.
	capacity, capacityLog *capacity
}

// DefaultSeed seeds the random generator until SetSeed changes it.
const DefaultSeed = 1

// Start starts a proxy on a free port of 127.0.0.1 that forwards to target,
// a base URL such as http://127.0.0.1:10002 (Azurite's table endpoint
// without the account). Request paths are kept: a client of
// p.Endpoint("devstoreaccount1") reaches target/devstoreaccount1/...
func Start(target string) (*Proxy, error) {
	u, err := url.Parse(target)
	if err != nil {
		return nil, fmt.Errorf("faults: target: %w", err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("faults: target %q is not an http(s) base URL", target)
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	u.RawQuery, u.Fragment = "", ""

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("faults: listen: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := &Proxy{
		target:    u,
		addr:      ln.Addr().String(),
		ctx:       ctx,
		cancel:    cancel,
		serveDone: make(chan struct{}),
		rng:       newRand(DefaultSeed),
		counts:    make(map[string]int),
	}
	p.tr = &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        1024,
		MaxIdleConnsPerHost: 256,
		// Azurite closes idle connections after 5s; closing ours first
		// avoids sending a request on a connection the server is closing.
		IdleConnTimeout:       4 * time.Second,
		DisableCompression:    true,
		ExpectContinueTimeout: time.Second,
	}
	discard := log.New(io.Discard, "", 0)
	p.rp = &httputil.ReverseProxy{
		Rewrite:      func(pr *httputil.ProxyRequest) { pr.SetURL(p.target) },
		Transport:    p.tr,
		ErrorLog:     discard,
		ErrorHandler: p.upstreamFailed,
	}
	p.srv = &http.Server{
		Handler:           http.HandlerFunc(p.serve),
		ErrorLog:          discard,
		ReadHeaderTimeout: time.Minute,
	}
	go func() {
		defer close(p.serveDone)
		_ = p.srv.Serve(&countingListener{Listener: ln, n: &p.conns})
	}()
	return p, nil
}

func newRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
}

// URL is the proxy's base URL, http://127.0.0.1:port.
func (p *Proxy) URL() string { return "http://" + p.addr }

// Endpoint is URL()+"/"+account: the table service endpoint of a
// path-style account such as Azurite's devstoreaccount1.
func (p *Proxy) Endpoint(account string) string { return p.URL() + "/" + account }

// Close stops the proxy: it closes the listener and every client
// connection, cancels forwarded requests and waits until every request
// handler has returned. It is safe to call more than once.
func (p *Proxy) Close() error {
	p.closeOnce.Do(func() {
		p.mu.Lock()
		p.closed = true
		p.mu.Unlock()
		p.closeErr = p.srv.Close() // connections first: no handler can answer after this
		p.cancel()
		p.handlers.Wait()
		<-p.serveDone
		p.tr.CloseIdleConnections()
	})
	return p.closeErr
}

// SetRules replaces the rules; their Times budgets start from zero.
func (p *Proxy) SetRules(rules ...Rule) {
	rs := make([]*ruleState, len(rules))
	for i, r := range rules {
		rs[i] = &ruleState{Rule: r}
	}
	p.mu.Lock()
	p.rules = rs
	p.mu.Unlock()
}

// SetLatency adds d to every request from now on (0 removes it).
func (p *Proxy) SetLatency(d time.Duration) {
	p.mu.Lock()
	p.latency = max(d, 0)
	p.mu.Unlock()
}

// SetSeed reseeds the generator behind Rule.Probability.
func (p *Proxy) SetSeed(seed uint64) {
	p.mu.Lock()
	p.rng = newRand(seed)
	p.mu.Unlock()
}

// Count returns how many requests arrived (faulted or not) whose key, the
// method and path such as "PUT /devstoreaccount1/t1(PartitionKey='p',RowKey='r')",
// contains s.
func (p *Proxy) Count(s string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for k, c := range p.counts {
		if strings.Contains(k, s) {
			n += c
		}
	}
	return n
}

// Counts returns a copy of the request counts by "METHOD /path".
func (p *Proxy) Counts() map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	m := make(map[string]int, len(p.counts))
	for k, c := range p.counts {
		m[k] = c
	}
	return m
}

// Injected returns how many times a rule fired since the last Reset.
func (p *Proxy) Injected() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.injected
}

// Conns returns how many TCP connections the proxy accepted from clients
// since the last Reset: with keep-alive working, far fewer than requests.
func (p *Proxy) Conns() int { return int(p.conns.Load()) }

// Reset zeroes the request, fault and connection counters. Rules keep their
// Times budgets; SetRules renews those.
func (p *Proxy) Reset() {
	p.mu.Lock()
	clear(p.counts)
	p.injected = 0
	p.conns.Store(0)
	p.mu.Unlock()
}

// serve handles one client request.
func (p *Proxy) serve(w http.ResponseWriter, r *http.Request) {
	if !p.enter() {
		reset(w)
		return
	}
	defer p.handlers.Done()
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	defer context.AfterFunc(p.ctx, cancel)()
	r = r.WithContext(ctx)

	f, latency := p.decide(r)
	if f.kind == kindLatency {
		latency += f.delay
	}
	if !wait(ctx, latency) {
		reset(w) // never let the server send an empty 200 for us
		return
	}
	if (f.kind == kindNone || f.kind == kindLatency) && p.overCapacity(r) {
		drainBody(r)
		writeServerBusy(w)
		return
	}
	switch f.kind {
	case kindStatus:
		drainBody(r)
		writeStatus(w, f)
	case kindResetBeforeForward:
		drainBody(r)
		reset(w)
	case kindDropAfterForward:
		p.rp.ServeHTTP(&discardWriter{h: make(http.Header)}, r)
		reset(w)
	case kindTruncateAfterForward, kindGarbleAfterForward, kindGarbleMiddleAfterForward:
		rec := &recordWriter{h: make(http.Header), status: http.StatusOK}
		p.rp.ServeHTTP(rec, r)
		mangle(w, rec, f.kind)
	case kindContinuation:
		rec := &recordWriter{h: make(http.Header), status: http.StatusOK}
		p.rp.ServeHTTP(rec, r)
		garbleContinuation(w, r, rec, f)
	default:
		p.rp.ServeHTTP(w, r)
	}
}

// enter registers a running handler unless the proxy is closing.
func (p *Proxy) enter() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.handlers.Add(1)
	return true
}

// decide counts the request and picks the fault of the first rule that fires.
func (p *Proxy) decide(r *http.Request) (Fault, time.Duration) {
	p.mu.Lock()
	rules := p.rules
	p.mu.Unlock()
	matched := make([]bool, len(rules))
	for i, rs := range rules {
		matched[i] = rs.Match == nil || rs.Match(r) // user code: outside the lock
	}

	p.mu.Lock()
	defer p.mu.Unlock()
	p.counts[r.Method+" "+r.URL.Path]++
	roll := -1.0
	for i, rs := range rules {
		if !matched[i] || (rs.Times > 0 && rs.fired.Load() >= int64(rs.Times)) {
			continue
		}
		if pr := rs.Probability; pr > 0 && pr < 1 {
			if roll < 0 {
				roll = p.rng.Float64()
			}
			if roll >= pr {
				roll -= pr
				continue
			}
		}
		rs.fired.Add(1)
		p.injected++
		return rs.Fault, p.latency
	}
	return Fault{}, p.latency
}

// upstreamFailed answers 502, as a gateway does, when forwarding failed.
func (p *Proxy) upstreamFailed(w http.ResponseWriter, r *http.Request, err error) {
	if r.Context().Err() != nil {
		reset(w)
		return
	}
	writeStatus(w, Fault{kind: kindStatus, status: http.StatusBadGateway, code: "ProxyUpstreamFailed"})
}

// wait sleeps d unless ctx ends first; it reports whether d passed.
func wait(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// reset closes the client's connection with SO_LINGER 0, so that the client
// sees a TCP reset rather than an orderly close.
func reset(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}

// drainBody reads the request body so that the client finished sending.
func drainBody(r *http.Request) {
	_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, 64<<20))
}

// writeStatus writes an injected error response.
func writeStatus(w http.ResponseWriter, f Fault) {
	h := w.Header()
	for k, vs := range f.header {
		h[k] = append([]string(nil), vs...)
	}
	var body []byte
	if f.code != "" {
		body = errorBody(f.code, http.StatusText(f.status)+" (injected by the faults proxy)")
		h.Set("Content-Type", "application/json;odata=minimalmetadata;streaming=true;charset=utf-8")
	}
	h.Set("Content-Length", fmt.Sprint(len(body)))
	w.WriteHeader(f.status)
	_, _ = w.Write(body)
}

// discardWriter receives a forwarded response that the client must not get.
type discardWriter struct{ h http.Header }

func (d *discardWriter) Header() http.Header         { return d.h }
func (d *discardWriter) WriteHeader(int)             {}
func (d *discardWriter) Write(b []byte) (int, error) { return len(b), nil }

// recordWriter keeps a forwarded response for the faults that alter it.
type recordWriter struct {
	h      http.Header
	status int
	body   []byte
}

func (d *recordWriter) Header() http.Header  { return d.h }
func (d *recordWriter) WriteHeader(code int) { d.status = code }
func (d *recordWriter) Write(b []byte) (int, error) {
	d.body = append(d.body, b...)
	return len(b), nil
}

// mangle sends the client a recorded response cut to half its body (then a
// reset) or with its body replaced by garbage of the same length.
func mangle(w http.ResponseWriter, rec *recordWriter, kind faultKind) {
	h := w.Header()
	for k, vs := range rec.h {
		h[k] = append([]string(nil), vs...)
	}
	body := rec.body
	switch kind {
	case kindGarbleAfterForward:
		body = garbage(len(body))
	case kindGarbleMiddleAfterForward:
		body = bytes.Clone(body)
		third := len(body) / 3
		copy(body[third:], garbage(third))
	}
	h.Set("Content-Length", fmt.Sprint(len(rec.body)))
	w.WriteHeader(rec.status)
	if kind == kindTruncateAfterForward {
		_, _ = w.Write(body[:len(body)/2])
		rc := http.NewResponseController(w)
		_ = rc.Flush()
		if conn, _, err := rc.Hijack(); err == nil {
			_ = conn.Close() // an orderly close: the client reads the half, then EOF
		}
		return
	}
	_, _ = w.Write(body)
}

// garbage is n bytes that no JSON or multipart parser accepts.
func garbage(n int) []byte {
	const pattern = "\x00<garbled reply>\x00"
	b := make([]byte, n)
	for i := range b {
		b[i] = pattern[i%len(pattern)]
	}
	return b
}

// countingListener counts accepted connections. It returns them unwrapped,
// so a hijacked connection is still a *net.TCPConn (needed for SetLinger).
type countingListener struct {
	net.Listener
	n *atomic.Int64
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.n.Add(1)
	}
	return c, err
}
