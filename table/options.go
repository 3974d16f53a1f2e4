package table

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit/internal/core"
	"github.com/tablekit/tablekit/retry"
)

// DefaultPoolSize is the idle-connection pool size per host when
// Options.PoolSize is zero: sized for parallel work, where Go's default of
// 2 per host opens and closes connections all the time.
const DefaultPoolSize = 64

// Options tunes the connection and the retry layer. The zero value (and nil)
// means defaults; the package never modifies an Options.
type Options struct {
	// PoolSize is the number of requests you expect to run at once; the
	// idle connection pool per host is sized to it. Default 64.
	PoolSize int
	// IdleConnTimeout closes pooled connections unused for this long.
	// Default 30s.
	IdleConnTimeout time.Duration
	// ResponseHeaderTimeout bounds the wait for a response after the request
	// was sent. Default 60s (a query may run 5 s on the server per page).
	ResponseHeaderTimeout time.Duration
	// Retry is the retry policy for every request; nil means
	// retry.Default(), and &retry.Policy{MaxAttempts: 1} retries nothing.
	Retry *retry.Policy
	// Transport replaces the tuned HTTP client, e.g. for tests. When set,
	// PoolSize and the timeouts above are not used.
	Transport policy.Transporter
	// AllowInsecureHTTP permits http:// endpoints other than loopback
	// (Azurite on 127.0.0.1 is always allowed). Default https only.
	AllowInsecureHTTP bool
	// EchoInserts lets the service send every inserted entity back, as plain
	// aztables does. Default false: inserts send Prefer: return-no-content.
	EchoInserts bool
	// Backend is the service behind the endpoint, whose limits tablekit
	// checks before sending. Default DetectBackend (by host); set CosmosDB
	// for a custom domain in front of a Cosmos DB account.
	Backend Backend
	// Location sends point gets and queries to the geo-secondary
	// (PrimaryThenSecondary, SecondaryOnly); default PrimaryOnly. Writes always
	// go to the primary. On Cosmos DB other modes are tablekit.ErrUnsupported.
	Location LocationMode
	// SecondaryEndpoint is the secondary's table endpoint, needed only when
	// it is not the usual one for the primary or the connection string's
	// TableSecondaryEndpoint.
	SecondaryEndpoint string
	// Rate is the throughput the Service's data requests keep, adapting
	// when the service throttles (see Rate); nil means no limiter.
	Rate *Rate
	// Azcore is the base azcore configuration (logging, telemetry, tracing,
	// policies, cloud) for tablekit's pipeline and its aztables clients
	// alike; its Transport and Retry fields are replaced.
	Azcore azcore.ClientOptions
}

func (o *Options) rate() *Rate {
	if o == nil {
		return nil
	}
	return o.Rate
}

func (o *Options) parallelism() int {
	if o == nil || o.PoolSize <= 0 {
		return DefaultPoolSize
	}
	return o.PoolSize
}

// poolSize is the idle pool per host of the transport newHTTPClient builds,
// or 0 when the caller supplied the transport.
func (o *Options) poolSize() int {
	if o != nil && o.Transport != nil {
		return 0
	}
	return o.parallelism()
}

// newHTTPClient returns the tuned *http.Client that ClientOptions installs:
// TCP_NODELAY set explicitly on every connection (Nagle off: small requests
// are not held back waiting for ACKs), an idle pool per host sized to the
// parallelism, keep-alive, no Expect: 100-continue, TLS 1.2 or later, and
// timeouts. Everything else is as in azcore's default transport.
func newHTTPClient(o *Options) *http.Client {
	var opts Options
	if o != nil {
		opts = *o
	}
	if opts.IdleConnTimeout <= 0 {
		opts.IdleConnTimeout = 30 * time.Second
	}
	if opts.ResponseHeaderTimeout <= 0 {
		opts.ResponseHeaderTimeout = 60 * time.Second
	}
	n := opts.parallelism()
	dialer := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	tr := &http.Transport{
		Proxy: http.ProxyFromEnvironment,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := dialer.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			if tc, ok := c.(*net.TCPConn); ok {
				if err := tc.SetNoDelay(true); err != nil {
					c.Close()
					return nil, err
				}
			}
			return c, nil
		},
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          max(100, 2*n),
		MaxIdleConnsPerHost:   n,
		IdleConnTimeout:       opts.IdleConnTimeout,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: opts.ResponseHeaderTimeout,
		ExpectContinueTimeout: 0,
		TLSClientConfig:       &tls.Config{MinVersion: tls.VersionTLS12},
	}
	return &http.Client{Transport: tr}
}

// ClientOptions returns aztables client options with tablekit's transport,
// retry policy and no-echo inserts, for aztables code of your own that
// should share them. o may be nil.
func ClientOptions(o *Options) *aztables.ClientOptions {
	return clientOptions(o, o.transport(), nil)
}

// clientOptions is ClientOptions on the transport tr, with auth, when not
// nil, signing each attempt before the location policy (a credential
// aztables does not know, such as a bearer policy shared with the data
// pipeline).
func clientOptions(o *Options, tr policy.Transporter, auth policy.Policy) *aztables.ClientOptions {
	co := azcoreOptions(o, tr, auth)
	k, _ := o.kind() // an unknown Backend (ClientOptions alone does not check it) detects
	co.PerCallPolicies = append([]policy.Policy{unsupportedPolicy{kind: k}}, co.PerCallPolicies...)
	return &aztables.ClientOptions{ClientOptions: co}
}

// azcoreOptions is Options.Azcore (a copy) with tablekit's parts, for
// aztables clients: the no-echo policy (core.NoEcho) unless
// Options.EchoInserts; after the caller's per-call policies the retry
// policy (the only retry layer: azcore's is off); per attempt auth when not
// nil, the location policy (after signing: a read sent to the secondary
// keeps the primary's signature, as the service expects), then the
// caller's per-retry policies; the transport tr.
func azcoreOptions(o *Options, tr policy.Transporter, auth policy.Policy) policy.ClientOptions {
	return pipelineOptions(o, tr, auth, !o.echoInserts(), true)
}

// pipelineOptions is azcoreOptions with the no-echo and location policies
// where asked. The pipelines of tablekit's own data requests leave out
// what their requests do not need (newPipelines): each policy costs azcore
// a copy of the request on every attempt.
func pipelineOptions(o *Options, tr policy.Transporter, auth policy.Policy, noEcho, location bool) policy.ClientOptions {
	var opts Options
	if o != nil {
		opts = *o
	}
	co := opts.Azcore
	co.PerCallPolicies = append([]policy.Policy(nil), co.PerCallPolicies...)
	if noEcho {
		co.PerCallPolicies = append([]policy.Policy{core.NoEcho{}}, co.PerCallPolicies...)
	}
	co.PerCallPolicies = append(co.PerCallPolicies, retry.NewPipelinePolicy(opts.Retry))
	var perRetry []policy.Policy
	if auth != nil {
		perRetry = append(perRetry, auth)
	}
	if location {
		perRetry = append(perRetry, newLocationPolicy(&opts))
	}
	co.PerRetryPolicies = append(perRetry, co.PerRetryPolicies...)
	co.Retry = policy.RetryOptions{MaxRetries: -1}
	co.Transport = tr
	return co
}

// echoInserts is Options.EchoInserts (false for nil options).
func (o *Options) echoInserts() bool { return o != nil && o.EchoInserts }

// transport is Options.Transport, or a new tuned client (newHTTPClient).
func (o *Options) transport() policy.Transporter {
	if o != nil && o.Transport != nil {
		return o.Transport
	}
	return newHTTPClient(o)
}
