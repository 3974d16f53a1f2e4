package faults_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit/devtools/faults"
	"github.com/tablekit/tablekit/devtools/testenv"
)

// TestAzuriteThroughProxy checks that shared-key requests pass the proxy
// unchanged (path kept, signature valid) and that injected errors look like
// the service's to aztables.
func TestAzuriteThroughProxy(t *testing.T) {
	c, px, path := proxiedTable(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	entity, _ := json.Marshal(map[string]any{"PartitionKey": "p", "RowKey": "r", "Value": "v"})
	if _, err := c.UpsertEntity(ctx, entity, nil); err != nil {
		t.Fatalf("upsert through proxy: %v", err)
	}
	got, err := c.GetEntity(ctx, "p", "r", nil)
	if err != nil {
		t.Fatalf("get through proxy: %v", err)
	}
	var m map[string]any
	_ = json.Unmarshal(got.Value, &m)
	if m["Value"] != "v" {
		t.Errorf("entity: got %v, want Value v", m)
	}

	px.SetRules(faults.Rule{Match: faults.Method(http.MethodGet), Times: 1,
		Fault: faults.Status(http.StatusServiceUnavailable, "ServerBusy", nil)})
	_, err = c.GetEntity(ctx, "p", "r", nil)
	var re *azcore.ResponseError
	if !errors.As(err, &re) {
		t.Fatalf("injected 503: got %v, want *azcore.ResponseError", err)
	}
	if got, want := re.StatusCode, 503; got != want {
		t.Errorf("status: got %d, want %d", got, want)
	}
	if got, want := re.ErrorCode, "ServerBusy"; got != want {
		t.Errorf("code: got %q, want %q", got, want)
	}
	if got, want := px.Count("GET "+path), 2; got != want {
		t.Errorf("Count: got %d, want %d", got, want)
	}
}

// proxiedTable is a new table of the emulator behind a proxy, an aztables
// client of it that does not retry, and the table's path as the proxy
// counts it.
func proxiedTable(t *testing.T) (*aztables.Client, *faults.Proxy, string) {
	t.Helper()
	env := testenv.Azurite(t)
	name, _ := env.NewTable(t, nil)
	px := startProxy(t, env.Endpoint[:strings.LastIndex(env.Endpoint, "/")])
	opts := &aztables.ClientOptions{ClientOptions: azcore.ClientOptions{Retry: policy.RetryOptions{MaxRetries: -1}}}
	c, err := aztables.NewClientWithSharedKey(px.Endpoint(env.Account)+"/"+name, env.Credential(t), opts)
	if err != nil {
		t.Fatal(err)
	}
	return c, px, "/" + env.Account + "/" + name
}
