package core

import (
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/tracing"

	"github.com/tablekit/tablekit/internal/backend"
)

// Conn is what the pipeline path needs of a service: the pipeline package
// table built for it, the endpoint its requests are built on, the profile
// of the backend behind it, its tracer and its pool size. It is shared by
// every table of the service.
type Conn struct {
	pl, wpl  runtime.Pipeline
	echo     bool
	endpoint string
	profile  backend.Profile
	tracer   tracing.Tracer
	pool     int
	ua       string
}

// Config describes a Conn.
type Config struct {
	// Pipeline sends every request: transport, retry, authentication and
	// the caller's azcore options, as package table assembles them.
	Pipeline runtime.Pipeline
	// Writes, when not nil, sends the writes (inserts, updates, upserts,
	// deletes and transactions) instead: a pipeline without the policies
	// only reads need (table's location policy).
	Writes *runtime.Pipeline
	// Endpoint is the service URL without a trailing slash, followed by
	// "/?" and the SAS query when the credential is a SAS: the URL aztables
	// is given for the same service, from which it builds its requests.
	Endpoint string
	// Profile is the backend's (internal/backend): its limits, what it
	// lacks, and how it takes a merge.
	Profile backend.Profile
	// Tracer starts the spans of the requests.
	Tracer tracing.Tracer
	// PoolSize is the transport's idle pool per host; 0 when unknown.
	PoolSize int
	// UserAgent, when not empty, is set on every request: the pipeline's
	// telemetry policy is then off, its header written with the others.
	UserAgent string
	// EchoInserts lets the service send an inserted entity back; otherwise
	// an insert asks for no echo itself (Prefer: return-no-content), and
	// the pipelines need no no-echo policy.
	EchoInserts bool
}

// NewConn returns the Conn c describes.
func NewConn(c Config) *Conn {
	conn := &Conn{pl: c.Pipeline, wpl: c.Pipeline, echo: c.EchoInserts, endpoint: c.Endpoint, profile: c.Profile, tracer: c.Tracer, pool: c.PoolSize, ua: c.UserAgent}
	if c.Writes != nil {
		conn.wpl = *c.Writes
	}
	return conn
}

// PoolSize is the transport's idle pool per host; 0 when unknown.
func (c *Conn) PoolSize() int { return c.pool }

// Profile is the profile of the service's backend.
func (c *Conn) Profile() *backend.Profile { return &c.profile }
