package retry_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit/devtools/faults"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/retry"
)

// rig is a fresh table on Azurite with a fault proxy in front of it.
type rig struct {
	env    *testenv.Env
	name   string           // table name
	direct *aztables.Client // straight to Azurite, no faults, for checking
	px     *faults.Proxy
}

func newRig(t *testing.T) *rig {
	t.Helper()
	env := testenv.Azurite(t)
	name, direct := env.NewTable(t, nil)
	u, err := url.Parse(env.Endpoint)
	if err != nil {
		t.Fatal(err)
	}
	px, err := faults.Start(u.Scheme + "://" + u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = px.Close() })
	return &rig{env: env, name: name, direct: direct, px: px}
}

// client is an aztables client for the rig's table through the proxy, with
// p installed as the pipeline policy (nil: not installed).
func (r *rig) client(t *testing.T, p *retry.Policy, azRetry policy.RetryOptions) *aztables.Client {
	t.Helper()
	return r.clientFor(t, r.name, p, azRetry, nil)
}

func (r *rig) clientFor(t *testing.T, table string, p *retry.Policy, azRetry policy.RetryOptions, transport policy.Transporter) *aztables.Client {
	t.Helper()
	opts := &aztables.ClientOptions{ClientOptions: azcore.ClientOptions{Retry: azRetry, Transport: transport}}
	if p != nil {
		opts.PerCallPolicies = []policy.Policy{retry.NewPipelinePolicy(p)}
	}
	c, err := aztables.NewClientWithSharedKey(r.px.Endpoint(r.env.Account)+"/"+table, r.env.Credential(t), opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// entityPath is the proxy's count key suffix of one entity.
func (r *rig) entityPath(pk, rk string) string {
	return "/" + r.env.Account + "/" + r.name + "(PartitionKey='" + pk + "',RowKey='" + rk + "')"
}

// entityWrite matches upserts and updates (PUT, PATCH) of this rig's
// entities, and records their arrival times and x-ms-date headers.
type arrivals struct {
	mu    sync.Mutex
	times []time.Time
	dates []string
}

func (a *arrivals) record(r *http.Request) {
	a.mu.Lock()
	a.times = append(a.times, time.Now())
	a.dates = append(a.dates, r.Header.Get("X-Ms-Date"))
	a.mu.Unlock()
}

func (a *arrivals) gaps() []time.Duration {
	a.mu.Lock()
	defer a.mu.Unlock()
	var g []time.Duration
	for i := 1; i < len(a.times); i++ {
		g = append(g, a.times[i].Sub(a.times[i-1]))
	}
	return g
}

// writes matches PUT and PATCH requests on entities of the rig's table.
func (r *rig) writes(rec *arrivals) func(*http.Request) bool {
	prefix := "/" + r.env.Account + "/" + r.name + "("
	return func(req *http.Request) bool {
		if (req.Method != http.MethodPut && req.Method != http.MethodPatch) || !strings.HasPrefix(req.URL.Path, prefix) {
			return false
		}
		if rec != nil {
			rec.record(req)
		}
		return true
	}
}

// inserts matches Insert Entity requests (POST to the table's path).
func (r *rig) inserts() func(*http.Request) bool {
	path := "/" + r.env.Account + "/" + r.name
	return func(req *http.Request) bool { return req.Method == http.MethodPost && req.URL.Path == path }
}

// stored reads an entity straight from Azurite.
func (r *rig) stored(t *testing.T, pk, rk string) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := r.direct.GetEntity(ctx, pk, rk, nil)
	if err != nil {
		t.Fatalf("GetEntity(%s, %s) straight from Azurite: %v", pk, rk, err)
	}
	var m map[string]any
	if err := json.Unmarshal(resp.Value, &m); err != nil {
		t.Fatal(err)
	}
	return m
}
