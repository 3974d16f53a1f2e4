package table

import (
	"context"
	"net/http"
	"runtime/debug"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit/internal/core"
	"github.com/tablekit/tablekit/internal/errmap"
)

// newConn builds the pipelines of a service's data requests and the
// connection its tables share. endpoint is the URL requests are built on
// (with the SAS query when the credential is a SAS); auth signs each
// attempt (Shared Key Lite, a bearer token) or is nil (a SAS, in the URL);
// tr is the transport the service's aztables clients use as well, so that
// both share one connection pool. The caller has checked the options
// (checkLocation), so the backend's profile is known.
func newConn(o *Options, endpoint string, auth policy.Policy, tr policy.Transporter) *core.Conn {
	prof, _ := o.profile(endpoint)
	reads, writes, ua := newPipelines(o, auth, tr)
	return core.NewConn(core.Config{
		Pipeline:    reads,
		Writes:      &writes,
		Endpoint:    endpoint,
		Profile:     prof,
		Tracer:      o.newTracer(),
		PoolSize:    o.poolSize(),
		UserAgent:   ua,
		EchoInserts: o.echoInserts(),
	})
}

// newPipelines assembles the pipelines of tablekit's data requests with
// runtime.NewPipeline, as aztables assembles a client's, from
// pipelineOptions: tablekit's and the caller's policies, then azcore's own
// (headers, HTTP tracing, logging, body download) and the transport; with
// Options.Rate, the Service's limiter first among the per-attempt
// policies. Neither has the no-echo policy: tablekit's inserts ask for no
// echo themselves (core.Config.EchoInserts). The writes' pipeline has no
// location policy either, since writes always go to the primary. azcore's
// telemetry policy is off: its User-Agent, returned as ua, goes out with
// the headers every request has (core.Config.UserAgent), one policy fewer
// on every request.
func newPipelines(o *Options, auth policy.Policy, tr policy.Transporter) (reads, writes runtime.Pipeline, ua string) {
	l := newLimiter(o.rate())
	build := func(location bool) runtime.Pipeline {
		co := pipelineOptions(o, tr, auth, false, location)
		if l != nil {
			co.PerRetryPolicies = append([]policy.Policy{ratePolicy{l}}, co.PerRetryPolicies...)
		}
		ua = userAgent(co.Telemetry)
		co.Telemetry.Disabled = true
		return runtime.NewPipeline(telemetryName, moduleVersion(), runtime.PipelineOptions{}, &co)
	}
	return build(true), build(false), ua
}

// userAgent is the User-Agent azcore's telemetry policy writes for
// tablekit under t (its ApplicationID included; "" when t disables it),
// read from the policy itself rather than a copy of its format: one
// request through a pipeline of that policy alone, answered in process.
func userAgent(t policy.TelemetryOptions) string {
	if t.Disabled {
		return ""
	}
	var ua string
	capture := transportFunc(func(r *http.Request) (*http.Response, error) {
		ua = r.Header.Get("User-Agent")
		return &http.Response{StatusCode: http.StatusOK, Header: http.Header{}, Body: http.NoBody, Request: r}, nil
	})
	pl := runtime.NewPipeline(telemetryName, moduleVersion(), runtime.PipelineOptions{},
		&policy.ClientOptions{Telemetry: t, Transport: capture, Retry: policy.RetryOptions{MaxRetries: -1}})
	req, err := runtime.NewRequest(context.Background(), http.MethodGet, "http://127.0.0.1/")
	if err == nil {
		_, _ = pl.Do(req)
	}
	return ua
}

// transportFunc is a policy.Transporter of a function.
type transportFunc func(*http.Request) (*http.Response, error)

func (f transportFunc) Do(r *http.Request) (*http.Response, error) { return f(r) }

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
