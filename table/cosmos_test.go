package table_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/devtools/cosmos"
	"github.com/tablekit/tablekit/devtools/faults"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/retry"
	"github.com/tablekit/tablekit/table"
)

// TestCosmosUnsupportedCalls: the calls Cosmos DB for Table does not have
// are refused before any request, with an error that names Cosmos DB and
// matches tablekit.ErrUnsupported, whether made through the Service, an aztables
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
	tests := []struct {
		name string
		call func(context.Context) error
	}{
		{"Service.Properties", func(ctx context.Context) error { _, err := svc.Properties(ctx); return err }},
		{"Service.SetProperties", func(ctx context.Context) error { return svc.SetProperties(ctx, aztables.ServiceProperties{}) }},
		{"Service.Stats", func(ctx context.Context) error { _, err := svc.Stats(ctx); return err }},
		{"GetAccessPolicy of Table.Client", func(ctx context.Context) error { _, err := tbl.Client().GetAccessPolicy(ctx, nil); return err }},
		{"SetAccessPolicy of Service.Raw().NewClient", func(ctx context.Context) error {
			_, err := svc.Raw().NewClient(tbl.Name()).SetAccessPolicy(ctx, nil)
			return err
		}},
		{"GetAccessPolicy of a ClientOptions client", func(ctx context.Context) error { _, err := own.GetAccessPolicy(ctx, nil); return err }},
		{"aztables GetProperties of Service.Raw", func(ctx context.Context) error { _, err := svc.Raw().GetProperties(ctx, nil); return err }},
		{"aztables GetStatistics of Service.Raw", func(ctx context.Context) error { _, err := svc.Raw().GetStatistics(ctx, nil); return err }},
		{"custom domain with Backend CosmosDB", func(ctx context.Context) error { _, err := custom.GetAccessPolicy(ctx, nil); return err }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs.Reset()
			err := tt.call(ctx)
			if !errors.Is(err, tablekit.ErrUnsupported) {
				t.Fatalf("got %v, want tablekit.ErrUnsupported", err)
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
	if _, err := table.NewServiceWithSharedKey("https://acct.table.core.windows.net", "acct", key, &table.Options{Backend: 9}); !errors.Is(err, tablekit.ErrInvalid) {
		t.Errorf("Backend(9): got %v, want tablekit.ErrInvalid", err)
	}
}

// failTransport fails the test for any request that reaches it.
type failTransport struct{ t *testing.T }

func (f failTransport) Do(r *http.Request) (*http.Response, error) {
	f.t.Errorf("a request was sent: %s %s", r.Method, r.URL.Path)
	return nil, errors.New("failTransport: no request may be sent")
}

// bigEntity is a table.Entity with about size bytes of JSON in strings
// of 32 Ki ASCII characters (the longest a property may hold).
func bigEntity(pk, rk string, size int) table.Entity {
	e := table.Entity{PartitionKey: pk, RowKey: rk, Properties: map[string]any{}}
	const chunk = 32 << 10
	for i := 0; size > 0; i++ {
		n := min(size, chunk)
		e.Properties[fmt.Sprintf("S%03d", i)] = strings.Repeat(string(rune('a'+i%26)), n)
		size -= n + 10 // the name and quotes
	}
	return e
}

// TestCosmosEntityLimits: Cosmos DB's limits apply before sending: a 1.5
// MB entity (over Table Storage's 1 MiB) is written and read back, a 2.2
// MB one, a RowKey over 255 bytes and a reserved property name are refused
// with nothing sent; Table Storage keeps its own limits.
func TestCosmosEntityLimits(t *testing.T) {
	env := testenv.Azurite(t)
	cs := env.Cosmos(t, nil)
	tbl := testenv.NewTable[table.Entity](t, env.CosmosService(t, cs, nil))
	ctx := testenv.Context(t, 2*time.Minute)

	big := bigEntity("p", "big", 1_500_000)
	if body, err := tbl.Marshal(big); err != nil || len(body) < 1_500_000 {
		t.Fatalf("Marshal of the 1.5 MB entity: %d bytes, %v", len(body), err)
	}
	if _, err := tbl.Upsert(ctx, big, table.Replace); err != nil {
		t.Fatalf("Upsert of 1.5 MB: %v", err)
	}
	got, err := tbl.Get(ctx, "p", "big", nil)
	if err != nil {
		t.Fatalf("Get of 1.5 MB: %v", err)
	}
	if len(got.Properties) != len(big.Properties) || got.Properties["S045"] != big.Properties["S045"] {
		t.Errorf("read back %d properties, want %d, the same", len(got.Properties), len(big.Properties))
	}
	big.RowKey = "added"
	if _, err := tbl.Add(ctx, big); err != nil {
		t.Errorf("Add of 1.5 MB: %v", err)
	}

	long := strings.Repeat("r", 256)
	refused := []struct {
		name string
		call func() error
		want error
		rule string
	}{
		{"Upsert of 2.2 MB", func() error { _, err := tbl.Upsert(ctx, bigEntity("p", "huge", 2_200_000), table.Replace); return err }, tablekit.ErrInvalid, "entity too large"},
		{"Add of 2.2 MB", func() error { _, err := tbl.Add(ctx, bigEntity("p", "huge", 2_200_000)); return err }, tablekit.ErrInvalid, "entity too large"},
		{"RowKey of 256 bytes", func() error {
			_, err := tbl.Upsert(ctx, table.Entity{PartitionKey: "p", RowKey: long}, table.Replace)
			return err
		}, tablekit.ErrInvalid, "key too long (256 bytes of UTF-8, at most 255)"},
		{"Get by a RowKey of 256 bytes", func() error { _, err := tbl.Get(ctx, "p", long, nil); return err }, tablekit.ErrInvalid, "key too long"},
		{"Delete by a RowKey of 256 bytes", func() error { return tbl.Delete(ctx, "p", long, table.AnyETag) }, tablekit.ErrInvalid, "key too long"},
		{"reserved name", func() error {
			_, err := tbl.Upsert(ctx, table.Entity{PartitionKey: "p", RowKey: "r", Properties: map[string]any{"ResourceId": "x"}}, table.Replace)
			return err
		}, tablekit.ErrInvalid, "ResourceId: invalid property name (reserved by Azure Cosmos DB for Table)"},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			cs.Reset()
			err := tt.call()
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.rule) {
				t.Errorf("got %v, want %v naming %q", err, tt.want, tt.rule)
			}
			if n := cs.Stats().Requests; n != 0 {
				t.Errorf("the stand-in got %d requests, want none", n)
			}
		})
	}

	// The same entities on Table Storage: its own limits.
	st := testenv.NewTable[table.Entity](t, env.NewService(t, nil))
	if _, err := st.Upsert(ctx, bigEntity("p", "big", 1_500_000), table.Replace); !errors.Is(err, tablekit.ErrInvalid) {
		t.Errorf("1.5 MB on Table Storage: got %v, want tablekit.ErrInvalid", err)
	}
	if _, err := st.Upsert(ctx, table.Entity{PartitionKey: "p", RowKey: long, Properties: map[string]any{"ID": "x"}}, table.Replace); err != nil {
		t.Errorf("a 256-byte RowKey and ID on Table Storage: %v", err)
	}
}

// headerLog records the method, X-HTTP-Method and Prefer of every request
// as it leaves the pipeline.
type headerLog struct {
	mu   sync.Mutex
	seen []string
}

func (h *headerLog) Do(req *policy.Request) (*http.Response, error) {
	r := req.Raw()
	h.mu.Lock()
	h.seen = append(h.seen, r.Method+" override="+r.Header.Get("X-HTTP-Method")+" prefer="+r.Header.Get("Prefer"))
	h.mu.Unlock()
	return req.Next()
}

// TestCosmosMergeNoPrefer: aztables sends a merge to Cosmos DB as a POST
// to the entity's path; ClientOptions' no-echo policy must not take it for
// an insert (Prefer: return-no-content is an insert's header), while an
// insert still gets it.
func TestCosmosMergeNoPrefer(t *testing.T) {
	env := testenv.Azurite(t)
	cs := env.Cosmos(t, nil)
	tbl := testenv.NewTable[keyed](t, env.CosmosService(t, cs, nil))
	log := &headerLog{}
	o := &table.Options{Transport: cs.Client()}
	o.Azcore.PerRetryPolicies = []policy.Policy{log}
	c, err := aztables.NewClientWithSharedKey(cs.Endpoint()+"/"+tbl.Name(), env.Credential(t), table.ClientOptions(o))
	if err != nil {
		t.Fatal(err)
	}
	ctx := testenv.Context(t, time.Minute)
	entity := []byte(`{"PartitionKey":"p","RowKey":"r","N":1}`)
	add, err := c.AddEntity(ctx, entity, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpsertEntity(ctx, entity, &aztables.UpsertEntityOptions{UpdateMode: aztables.UpdateModeMerge}); err != nil {
		t.Fatal(err)
	}
	etag := add.ETag
	if got, err := c.GetEntity(ctx, "p", "r", nil); err == nil {
		etag = got.ETag
	}
	if _, err := c.UpdateEntity(ctx, entity, &aztables.UpdateEntityOptions{UpdateMode: aztables.UpdateModeMerge, IfMatch: &etag}); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"POST override= prefer=return-no-content",
		"POST override=MERGE prefer=",
		"GET override= prefer=",
		"POST override=MERGE prefer=",
	}
	if got := log.seen; !slices.Equal(got, want) {
		t.Errorf("requests:\n got %q\nwant %q", got, want)
	}
}

// TestCosmosThrottledWrites: single writes through Cosmos DB's 429 (with
// and without x-ms-retry-after-ms) are retried and succeed; an insert
// retried after a 429 is no ambiguous insert (the 429 was an answer); when
// the policy gives up the error is tablekit.ErrThrottled and nothing was stored.
func TestCosmosThrottledWrites(t *testing.T) {
	env := testenv.Azurite(t)
	cs := env.Cosmos(t, nil)
	fast := retry.Policy{InitialInterval: 5 * time.Millisecond, MaxInterval: 20 * time.Millisecond, MaxAttempts: 4}
	tbl := testenv.NewTable[keyed](t, env.CosmosService(t, cs, &table.Options{Retry: &fast}))
	ctx := testenv.Context(t, time.Minute)
	inserts := faults.Method(http.MethodPost)
	for i, th := range []cosmos.Throttle{
		{Match: inserts, Times: 2, RetryAfter: 10 * time.Millisecond},
		{Match: inserts, Times: 2},
	} {
		cs.SetThrottle(th)
		if _, err := tbl.Add(ctx, keyed{PartitionKey: "p", RowKey: fmt.Sprint("ok", i)}); err != nil {
			t.Errorf("Add through two 429s (hint %v): %v", th.RetryAfter, err)
		}
	}
	cs.SetThrottle(cosmos.Throttle{Match: inserts, RetryAfter: time.Millisecond})
	_, err := tbl.Add(ctx, keyed{PartitionKey: "p", RowKey: "never"})
	if !errors.Is(err, tablekit.ErrThrottled) || errors.Is(err, tablekit.ErrMaybeCommitted) {
		t.Errorf("Add throttled to the end: got %v, want tablekit.ErrThrottled alone", err)
	}
	cs.SetThrottle()
	if _, err := tbl.Get(ctx, "p", "never", nil); !errors.Is(err, tablekit.ErrNotFound) {
		t.Errorf("after the throttled Add: Get got %v, want tablekit.ErrNotFound", err)
	}
}
