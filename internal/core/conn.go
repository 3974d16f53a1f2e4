package core

import (
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/tracing"

	"github.com/tablekit/tablekit/internal/wire"
)

// Conn is what the pipeline path needs of a service: the pipeline package
// table built for it, the endpoint its requests are built on, its tracer
// and its pool size. It is shared by every table of the service.
type Conn struct {
	pl       runtime.Pipeline
	endpoint string
	tracer   tracing.Tracer
	pool     int
	echo     bool
	// cosmos: the endpoint is the Cosmos DB Table API's. The backend
	// profile (internal/backend) takes this place: the data path asks it
	// how to send a merge.
	cosmos bool
}

// Config describes a Conn.
type Config struct {
	// Pipeline sends every request: transport, retry, authentication and
	// the caller's azcore options, as package table assembles them.
	Pipeline runtime.Pipeline
	// Endpoint is the service URL without a trailing slash, followed by
	// "/?" and the SAS query when the credential is a SAS: the URL aztables
	// is given for the same service, from which it builds its requests.
	Endpoint string
	// Tracer starts the spans of the requests.
	Tracer tracing.Tracer
	// PoolSize is the transport's idle pool per host; 0 when unknown.
	PoolSize int
	// EchoInserts lets the service send inserted entities back: inserts
	// then go without Prefer: return-no-content.
	EchoInserts bool
}

// NewConn returns the Conn c describes.
func NewConn(c Config) *Conn {
	return &Conn{pl: c.Pipeline, endpoint: c.Endpoint, tracer: c.Tracer, pool: c.PoolSize, echo: c.EchoInserts, cosmos: wire.IsCosmosEndpoint(c.Endpoint)}
}

// PoolSize is the transport's idle pool per host; 0 when unknown.
func (c *Conn) PoolSize() int { return c.pool }
