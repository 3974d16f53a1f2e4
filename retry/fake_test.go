package retry_test

import (
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit/retry"
)

// fakeTransport answers requests from a script without any network, and
// records what it was sent.
type fakeTransport struct {
	script func(n int, req *http.Request) (*http.Response, error) // n counts from 1

	mu     sync.Mutex
	calls  int
	bodies []string
	auth   []string
	urls   []string
}

func (f *fakeTransport) Do(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		body, _ = io.ReadAll(req.Body)
	}
	f.mu.Lock()
	f.calls++
	n := f.calls
	f.bodies = append(f.bodies, string(body))
	f.auth = append(f.auth, req.Header.Get("Authorization"))
	f.urls = append(f.urls, req.URL.String())
	f.mu.Unlock()
	return f.script(n, req)
}

func (f *fakeTransport) Calls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

const fakeKey = "Zm9yIHRlc3RzIG9ubHksIG5vdCBhIHJlYWwga2V5IGF0IGFsbA=="

// fakeClient is an aztables client for table t1 whose requests go to ft.
// With p == nil the retry policy is not installed. retryOpts are azcore's.
func fakeClient(t *testing.T, ft *fakeTransport, p *retry.Policy, retryOpts policy.RetryOptions) *aztables.Client {
	t.Helper()
	opts := &aztables.ClientOptions{ClientOptions: azcore.ClientOptions{Transport: ft, Retry: retryOpts}}
	if p != nil {
		opts.PerCallPolicies = []policy.Policy{retry.NewPipelinePolicy(p)}
	}
	cred, err := aztables.NewSharedKeyCredential("devstoreaccount1", fakeKey)
	if err != nil {
		t.Fatal(err)
	}
	c, err := aztables.NewClientWithSharedKey("http://127.0.0.1:1/devstoreaccount1/t1", cred, opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func entityJSON(t *testing.T, pk, rk string, v any) []byte {
	t.Helper()
	b, err := json.Marshal(map[string]any{"PartitionKey": pk, "RowKey": rk, "Value": v})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// events collects hook calls.
type events struct {
	mu  sync.Mutex
	evs []retry.Event
}

func (e *events) hook(ev retry.Event) {
	e.mu.Lock()
	e.evs = append(e.evs, ev)
	e.mu.Unlock()
}

func (e *events) all() []retry.Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]retry.Event(nil), e.evs...)
}

// sasClient is an aztables client without credential for a SAS URL.
func sasClient(t *testing.T, ft *fakeTransport, p *retry.Policy, sasURL string) *aztables.Client {
	t.Helper()
	opts := &aztables.ClientOptions{ClientOptions: azcore.ClientOptions{Transport: ft, Retry: policy.RetryOptions{MaxRetries: -1},
		PerCallPolicies: []policy.Policy{retry.NewPipelinePolicy(p)}}}
	c, err := aztables.NewClientWithNoCredential(sasURL, opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
