package table

import (
	"runtime/debug"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit/internal/core"
	"github.com/tablekit/tablekit/internal/errmap"
)

// newConn builds the pipeline of a service's data requests and the
// connection its tables share. endpoint is the URL requests are built on
// (with the SAS query when the credential is a SAS); auth signs each
// attempt (Shared Key Lite, a bearer token) or is nil (a SAS, in the URL);
// tr is the transport the service's aztables clients use as well, so that
// both share one connection pool. The caller has checked the options
// (checkLocation), so the backend's profile is known.
func newConn(o *Options, endpoint string, auth policy.Policy, tr policy.Transporter) *core.Conn {
	prof, _ := o.profile(endpoint)
	return core.NewConn(core.Config{
		Pipeline: newPipeline(o, auth, tr),
		Endpoint: endpoint,
		Profile:  prof,
		Tracer:   o.newTracer(),
		PoolSize: o.poolSize(),
	})
}

// newPipeline assembles the pipeline with runtime.NewPipeline, as aztables
// assembles a client's, from azcoreOptions: tablekit's and the caller's
// policies, then azcore's own (telemetry, headers, HTTP tracing, logging,
// body download) and the transport; with Options.Rate, the Service's
// limiter first among the per-attempt policies.
func newPipeline(o *Options, auth policy.Policy, tr policy.Transporter) runtime.Pipeline {
	co := azcoreOptions(o, tr, auth)
	if l := newLimiter(o.rate()); l != nil {
		co.PerRetryPolicies = append([]policy.Policy{ratePolicy{l}}, co.PerRetryPolicies...)
	}
	return runtime.NewPipeline(telemetryName, moduleVersion(), runtime.PipelineOptions{}, &co)
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
var errNoTablesCloud = errmap.Invalid("", "options", "the cloud configuration (Options.Azcore.Cloud) has no Azure Tables audience")

// tokenScope is the scope of a bearer token for endpoint, as aztables'
// NewServiceClient chooses it: https://storage.azure.com/.default for
// Table Storage in every cloud, the cloud's Cosmos DB audience for Cosmos
// DB (backend.Profile.Audience); a cloud without an Azure Tables
// configuration is an error either way, as there.
func tokenScope(endpoint string, o *Options) (string, error) {
	cl := cloud.AzurePublic
	if o != nil && (o.Azcore.Cloud.ActiveDirectoryAuthorityHost != "" || o.Azcore.Cloud.Services != nil) {
		cl = o.Azcore.Cloud
	}
	if cfg, ok := cl.Services[aztables.ServiceName]; !ok || cfg.Audience == "" {
		return "", errNoTablesCloud
	}
	prof, err := o.profile(endpoint)
	if err != nil {
		return "", err
	}
	return prof.Audience(cl) + "/.default", nil
}
