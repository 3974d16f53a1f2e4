package table_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/table"
)

// TestCosmosUnsupportedCalls: the calls Cosmos DB for Table does not have
// are refused before any request, with an error that names Cosmos DB and
// matches ErrUnsupported, whether made through the Service, an aztables
// client of the Service, or an aztables client built with ClientOptions
// (custom domains included, by Options.Backend). The stand-in counts what
// arrives: nothing.
func TestCosmosUnsupportedCalls(t *testing.T) {
	env := testenv.Azurite(t)
	cs := env.Cosmos(t, nil)
	svc := env.CosmosService(t, cs, nil)
	tbl := testenv.NewTable[keyed](t, svc)
	ctx := testenv.Context(t, time.Minute)
	own, err := aztables.NewClientWithSharedKey(cs.Endpoint()+"/"+tbl.Name(), env.Credential(t), table.ClientOptions(&table.Options{Transport: cs.Client()}))
	if err != nil {
		t.Fatal(err)
	}
	// A custom domain is Table Storage by its host; Options.Backend says
	// Cosmos DB. The request must not leave: the transport fails the test.
	custom, err := aztables.NewClientWithSharedKey("https://tables.example.com/"+tbl.Name(), env.Credential(t), table.ClientOptions(&table.Options{Transport: failTransport{t}, Backend: table.CosmosDB}))
	if err != nil {
		t.Fatal(err)
	}
	policy := []table.AccessPolicy{{ID: "p1", Permission: "r", Expiry: time.Now().Add(time.Hour)}}
	tests := []struct {
		name string
		call func(context.Context) error
	}{
		{"Service.Properties", func(ctx context.Context) error { _, err := svc.Properties(ctx); return err }},
		{"Service.SetProperties", func(ctx context.Context) error { return svc.SetProperties(ctx, aztables.ServiceProperties{}) }},
		{"Service.Stats", func(ctx context.Context) error { _, err := svc.Stats(ctx); return err }},
		{"Service.AccessPolicy", func(ctx context.Context) error { _, err := svc.AccessPolicy(ctx, tbl.Name()); return err }},
		{"Service.SetAccessPolicy", func(ctx context.Context) error { return svc.SetAccessPolicy(ctx, tbl.Name(), policy) }},
		{"GetAccessPolicy of Table.Client", func(ctx context.Context) error { _, err := table.GetAccessPolicy(ctx, tbl.Client()); return err }},
		{"SetAccessPolicy of Service.Client", func(ctx context.Context) error { return table.SetAccessPolicy(ctx, svc.Client(tbl.Name()), policy) }},
		{"GetAccessPolicy of a ClientOptions client", func(ctx context.Context) error { _, err := table.GetAccessPolicy(ctx, own); return err }},
		{"aztables GetProperties of Service.Raw", func(ctx context.Context) error { _, err := svc.Raw().GetProperties(ctx, nil); return err }},
		{"aztables GetStatistics of Service.Raw", func(ctx context.Context) error { _, err := svc.Raw().GetStatistics(ctx, nil); return err }},
		{"custom domain with Backend CosmosDB", func(ctx context.Context) error { _, err := table.GetAccessPolicy(ctx, custom); return err }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs.Reset()
			err := tt.call(ctx)
			if !errors.Is(err, table.ErrUnsupported) {
				t.Fatalf("got %v, want ErrUnsupported", err)
			}
			if !strings.Contains(err.Error(), "Azure Cosmos DB for Table") {
				t.Errorf("error %q does not name Cosmos DB", err)
			}
			if p := testenv.RepeatedPrefix(err.Error()); p != "" {
				t.Errorf("error %q says %q twice", err, p)
			}
			if got := cs.Stats(); got.Requests != 0 || len(got.Unsupported) != 0 {
				t.Errorf("the stand-in got %d requests (%v), want none", got.Requests, got.Unsupported)
			}
		})
	}
	// What Cosmos DB has still goes: the same clients read and write.
	cs.Reset()
	if _, err := tbl.Upsert(ctx, keyed{PartitionKey: "p", RowKey: "r"}, table.Replace); err != nil {
		t.Errorf("upsert after the refusals: %v", err)
	}
	if _, err := own.GetEntity(ctx, "p", "r", nil); err != nil {
		t.Errorf("get through the ClientOptions client: %v", err)
	}
}

// TestBackendOption: Options.Backend overrides the host, and
// Service.Backend reports what was chosen.
func TestBackendOption(t *testing.T) {
	const key = "b3RoZXJrZXk="
	tests := []struct {
		endpoint string
		backend  table.Backend
		want     table.Backend
	}{
		{"https://acct.table.core.windows.net", table.DetectBackend, table.TableStorage},
		{"https://acct.table.cosmos.azure.com", table.DetectBackend, table.CosmosDB},
		{"https://acct.table.cosmosdb.azure.com", table.DetectBackend, table.CosmosDB},
		{"https://tables.example.com", table.DetectBackend, table.TableStorage},
		{"https://tables.example.com", table.CosmosDB, table.CosmosDB},
		{"https://acct.table.cosmos.azure.com", table.TableStorage, table.TableStorage},
		{"http://127.0.0.1:10002/devstoreaccount1", table.DetectBackend, table.TableStorage},
	}
	for _, tt := range tests {
		svc, err := table.NewServiceWithSharedKey(tt.endpoint, "acct", key, &table.Options{Backend: tt.backend})
		if err != nil {
			t.Fatalf("%s, %v: %v", tt.endpoint, tt.backend, err)
		}
		if got := svc.Backend(); got != tt.want {
			t.Errorf("%s, %v: Backend() = %v, want %v", tt.endpoint, tt.backend, got, tt.want)
		}
	}
	if _, err := table.NewServiceWithSharedKey("https://acct.table.core.windows.net", "acct", key, &table.Options{Backend: 9}); !errors.Is(err, table.ErrInvalidOptions) {
		t.Errorf("Backend(9): got %v, want ErrInvalidOptions", err)
	}
}

// failTransport fails the test for any request that reaches it.
type failTransport struct{ t *testing.T }

func (f failTransport) Do(r *http.Request) (*http.Response, error) {
	f.t.Errorf("a request was sent: %s %s", r.Method, r.URL.Path)
	return nil, errors.New("failTransport: no request may be sent")
}
