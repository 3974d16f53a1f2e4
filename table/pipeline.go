package table

import (
	"errors"
	"runtime/debug"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit/internal/core"
	"github.com/tablekit/tablekit/internal/wire"
	"github.com/tablekit/tablekit/retry"
)

// newConn builds the pipeline of a service's data requests and the
// connection its tables share. endpoint is the URL requests are built on
// (with the SAS query when the credential is a SAS); auth signs each
// attempt (Shared Key Lite, a bearer token) or is nil (a SAS, in the URL);
// tr is the transport the service's aztables clients use as well, so that
// both share one connection pool.
func newConn(o *Options, endpoint string, auth policy.Policy, tr policy.Transporter) *core.Conn {
	return core.NewConn(core.Config{
		Pipeline:    newPipeline(o, auth, tr),
		Endpoint:    endpoint,
		Tracer:      o.newTracer(),
		PoolSize:    o.poolSize(),
		EchoInserts: o != nil && o.EchoInserts,
	})
}

// newPipeline assembles the pipeline as aztables assembles a client's, with
// tablekit's parts: the caller's per-call policies, then the retry policy
// (the only retry layer: azcore's is off); per attempt, auth, the location
// policy (after signing: a read sent to the secondary keeps the primary's
// signature, as the service expects), then the caller's per-retry
// policies; then azcore's own (headers, HTTP tracing, logging, body
// download) and the transport.
func newPipeline(o *Options, auth policy.Policy, tr policy.Transporter) runtime.Pipeline {
	var opts Options
	if o != nil {
		opts = *o
	}
	co := opts.Azcore
	co.PerCallPolicies = append([]policy.Policy(nil), co.PerCallPolicies...)
	if !opts.NoRetry {
		co.PerCallPolicies = append(co.PerCallPolicies, retry.NewPipelinePolicy(opts.Retry))
	}
	co.PerRetryPolicies = append([]policy.Policy{newLocationPolicy(&opts)}, co.PerRetryPolicies...)
	co.Retry = policy.RetryOptions{MaxRetries: -1}
	co.Transport = tr
	var pl runtime.PipelineOptions
	if auth != nil {
		pl.PerRetry = []policy.Policy{auth}
	}
	return runtime.NewPipeline(telemetryName, moduleVersion(), pl, &co)
}

// telemetryName names tablekit in the User-Agent that azcore's telemetry
// policy writes: azsdk-go-tablekit/<version>.
const telemetryName = "tablekit"

// moduleVersion is tablekit's module version in the running binary
// ("devel" when it is built from its own repository).
func moduleVersion() string {
	const module = "github.com/tablekit/tablekit"
	bi, ok := debug.ReadBuildInfo()
	if !ok || bi.Main.Path == module {
		return "devel"
	}
	for _, d := range bi.Deps {
		if d.Path == module {
			return d.Version
		}
	}
	return "devel"
}

// errNoTablesCloud is the error aztables' NewServiceClient gives for a
// cloud configuration without Azure Tables.
var errNoTablesCloud = errors.New("table: the cloud configuration has no Azure Tables audience (Options.Azcore.Cloud)")

// tokenScope is the scope of a bearer token for endpoint, as aztables'
// NewServiceClient chooses it: https://storage.azure.com/.default for
// Table Storage in every cloud, the cloud's Cosmos DB audience for Cosmos
// DB endpoints; a cloud without an Azure Tables configuration is an error
// either way, as there.
func tokenScope(endpoint string, o *Options) (string, error) {
	cl := cloud.AzurePublic
	if o != nil && (o.Azcore.Cloud.ActiveDirectoryAuthorityHost != "" || o.Azcore.Cloud.Services != nil) {
		cl = o.Azcore.Cloud
	}
	cfg, ok := cl.Services[aztables.ServiceName]
	if !ok || cfg.Audience == "" {
		return "", errNoTablesCloud
	}
	audience := "https://storage.azure.com"
	if wire.IsCosmosEndpoint(endpoint) {
		audience = cfg.Audience
	}
	return audience + "/.default", nil
}
