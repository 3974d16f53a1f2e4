package table_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/devtools/azurite"
	"github.com/tablekit/tablekit/devtools/faults"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/query"
	"github.com/tablekit/tablekit/retry"
	"github.com/tablekit/tablekit/sas"
	"github.com/tablekit/tablekit/table"
)

type Where struct {
	PartitionKey, RowKey string
	From                 string
}

// Two emulators stand for the primary and the geo-secondary, holding
// different data so a read shows where it was served; the fault proxy in
// front of the primary makes it fail.
//
// TestSecondaryReads: reads follow the location mode (gets, queries),
// writes stay on the primary, and Stats goes to the secondary.
func TestSecondaryReads(t *testing.T) {
	r := newSecondaryRig(t)
	t.Run("get", r.testGets)
	t.Run("query fails over", r.testQueryFailsOver)
	t.Run("writes stay on the primary", r.testWritesStayOnPrimary)
	t.Run("stats go to the secondary", r.testStats)
}

// secondaryRig is a primary (Azurite behind a fault proxy) and a second
// Azurite as its secondary, each holding the table name with rows r1 and
// r2 whose From says where they are; only the secondary has "lagging".
type secondaryRig struct {
	env    *testenv.Env
	ctx    context.Context
	second *azurite.Server
	proxy  *faults.Proxy
	name   string
	direct map[string]*table.Table[Where] // by "primary", "secondary": no proxy, no routing
}

func newSecondaryRig(t *testing.T) *secondaryRig {
	t.Helper()
	env := testenv.Azurite(t)
	ctx := testenv.Ctx(t)
	second, err := azurite.Start(ctx)
	if err != nil {
		t.Fatalf("second Azurite: %v", err)
	}
	t.Cleanup(second.Stop)
	proxy, err := faults.Start(strings.TrimSuffix(env.Endpoint, "/"+env.Account))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { proxy.Close() })

	name := testenv.TableName(t)
	direct := map[string]*table.Table[Where]{}
	for _, ep := range []struct{ label, url string }{{"primary", env.Endpoint}, {"secondary", second.Endpoint()}} {
		svc, err := table.NewServiceWithSharedKey(ep.url, env.Account, env.Key, nil)
		if err != nil {
			t.Fatal(err)
		}
		tbl, err := table.New[Where](svc, name)
		if err != nil {
			t.Fatal(err)
		}
		if err := svc.CreateTable(ctx, tbl.Name()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = svc.DeleteTable(context.Background(), tbl.Name()) })
		for _, rk := range []string{"r1", "r2"} {
			if _, err := tbl.Upsert(ctx, Where{"p", rk, ep.label}, table.Replace); err != nil {
				t.Fatal(err)
			}
		}
		direct[ep.label] = tbl
	}
	// Only the secondary has "lagging": a 404 on the primary must not fail over.
	if _, err := direct["secondary"].Upsert(ctx, Where{"p", "lagging", "secondary"}, table.Replace); err != nil {
		t.Fatal(err)
	}

	return &secondaryRig{env: env, ctx: ctx, second: second, proxy: proxy, name: name, direct: direct}
}

// open opens the table through the proxy in front of the primary, with
// the secondary from the connection string, in mode.
func (r *secondaryRig) open(t *testing.T, mode table.LocationMode) *table.Table[Where] {
	t.Helper()
	svc, err := table.NewService(r.connectionString(), &table.Options{Location: mode, Retry: &retry.Policy{MaxAttempts: 2, InitialInterval: time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := table.New[Where](svc, r.name)
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// connectionString names the proxy as the primary and the second Azurite
// as the secondary.
func (r *secondaryRig) connectionString() string {
	return "DefaultEndpointsProtocol=http;AccountName=" + r.env.Account + ";AccountKey=" + r.env.Key +
		";TableEndpoint=" + r.proxy.Endpoint(r.env.Account) + ";TableSecondaryEndpoint=" + r.second.Endpoint()
}

// busy answers 503 ServerBusy to every GET.
var busy = faults.Rule{Match: faults.Method(http.MethodGet), Fault: faults.Status(http.StatusServiceUnavailable, "ServerBusy", nil)}

// testGets: a Get in each mode, with the primary healthy or busy.
func (r *secondaryRig) testGets(t *testing.T) {
	ctx, proxy := r.ctx, r.proxy
	getTests := []struct {
		name     string
		mode     table.LocationMode
		fail     bool // the primary answers 503 ServerBusy to every GET
		rowKey   string
		selected bool // Get with Select (a query underneath)
		want     string
		wantFrom location
		wantErr  error
	}{
		{"primary only, healthy", table.PrimaryOnly, false, "r1", false, "primary", locPrimary, nil},
		{"primary only, busy", table.PrimaryOnly, true, "r1", false, "", 0, tablekit.ErrThrottled},
		{"fail over, healthy", table.PrimaryThenSecondary, false, "r1", false, "primary", locPrimary, nil},
		{"fail over, busy", table.PrimaryThenSecondary, true, "r1", false, "secondary", locSecondary, nil},
		{"fail over, busy, select", table.PrimaryThenSecondary, true, "r1", true, "secondary", locSecondary, nil},
		{"fail over, not found is final", table.PrimaryThenSecondary, false, "lagging", false, "", 0, tablekit.ErrNotFound},
		{"secondary only", table.SecondaryOnly, false, "r1", false, "secondary", locSecondary, nil},
		{"secondary only, primary busy", table.SecondaryOnly, true, "r1", false, "secondary", locSecondary, nil},
	}
	for _, tt := range getTests {
		t.Run("get/"+tt.name, func(t *testing.T) {
			if tt.fail {
				proxy.SetRules(busy)
			} else {
				proxy.SetRules()
			}
			proxy.Reset()
			tbl := r.open(t, tt.mode)
			o := &table.GetOptions{}
			if tt.selected {
				o.Select = []string{"From"}
			}
			got, from, err := getFrom(ctx, tbl, "p", tt.rowKey, o)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("Get error = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Get: %v", err)
			}
			asked := len(proxy.Counts()) > 0
			if wantAsked := tt.mode != table.SecondaryOnly; asked != wantAsked {
				t.Errorf("primary asked = %v, want %v (%v)", asked, wantAsked, proxy.Counts())
			}
			if got.From != tt.want || from != tt.wantFrom {
				t.Errorf("Get = %q served from %v, want %q from %v", got.From, from, tt.want, tt.wantFrom)
			}
		})
	}

}

// Package query gets the routing without knowing about it; a
// ReadLocations in the context tells where its pages came from.
func (r *secondaryRig) testQueryFailsOver(t *testing.T) {
	ctx, proxy := r.ctx, r.proxy
	proxy.SetRules(busy)
	tbl := r.open(t, table.PrimaryThenSecondary)
	var rl table.ReadLocations
	var froms []string
	for e, err := range query.New(tbl).Where(query.Partition("p")).PageSize(1).All(table.WithReadLocations(ctx, &rl)) {
		if err != nil {
			t.Fatal(err)
		}
		froms = append(froms, e.From)
	}
	if want := "secondary,secondary,secondary"; strings.Join(froms, ",") != want {
		t.Errorf("query read %v, want %s", froms, want)
	}
	if rl.Secondary() < 3 || rl.Primary() != 0 {
		t.Errorf("ReadLocations = %d primary, %d secondary; want 0 and at least 3", rl.Primary(), rl.Secondary())
	}
}

// Writes never go to the secondary, in any mode and whatever fails.
func (r *secondaryRig) testWritesStayOnPrimary(t *testing.T) {
	ctx, proxy, direct := r.ctx, r.proxy, r.direct
	proxy.SetRules()
	tbl := r.open(t, table.SecondaryOnly)
	if _, err := tbl.Upsert(ctx, Where{"p", "w", "written"}, table.Replace); err != nil {
		t.Fatal(err)
	}
	if e, err := direct["primary"].Get(ctx, "p", "w", nil); err != nil || e.From != "written" {
		t.Errorf("primary has %+v, %v; want the write", e, err)
	}
	if _, err := direct["secondary"].Get(ctx, "p", "w", nil); !errors.Is(err, tablekit.ErrNotFound) {
		t.Errorf("secondary Get of the write: error = %v, want tablekit.ErrNotFound", err)
	}
	proxy.SetRules(faults.Rule{Fault: faults.Status(http.StatusServiceUnavailable, "ServerBusy", nil)})
	tbl = r.open(t, table.PrimaryThenSecondary)
	if _, err := tbl.Upsert(ctx, Where{"p", "w2", "written"}, table.Replace); !errors.Is(err, tablekit.ErrThrottled) {
		t.Errorf("Upsert with a busy primary: error = %v, want tablekit.ErrThrottled", err)
	}
	if _, err := direct["secondary"].Get(ctx, "p", "w2", nil); !errors.Is(err, tablekit.ErrNotFound) {
		t.Errorf("the failed write reached the secondary: %v", err)
	}
}

// Stats is answered on the secondary only, so it is sent there.
func (r *secondaryRig) testStats(t *testing.T) {
	ctx, proxy := r.ctx, r.proxy
	proxy.SetRules()
	svc, err := table.NewService(r.connectionString(), &table.Options{Retry: &retry.Policy{MaxAttempts: 1}})
	if err != nil {
		t.Fatal(err)
	}
	proxy.Reset()
	_, err = svc.Stats(ctx)
	if !errors.Is(err, tablekit.ErrService) {
		t.Errorf("Stats on Azurite: error = %v, want a typed service error", err)
	}
	if n := proxy.Counts(); len(n) != 0 {
		t.Errorf("the primary saw %v, want no stats request", n)
	}
}

// fakeHosts answers 503 from the hosts in busy and an entity from others,
// recording every host asked.
type fakeHosts struct {
	busy  map[string]bool
	mu    sync.Mutex
	hosts []string
}

func (f *fakeHosts) Do(r *http.Request) (*http.Response, error) {
	f.mu.Lock()
	f.hosts = append(f.hosts, r.Method+" "+r.URL.Host)
	f.mu.Unlock()
	h := http.Header{"Content-Type": {"application/json"}, "x-ms-error-code": {"ServerBusy"}}
	if f.busy[r.URL.Host] {
		return &http.Response{StatusCode: 503, Header: h, Body: io.NopCloser(strings.NewReader(`{"odata.error":{"code":"ServerBusy"}}`)), Request: r}, nil
	}
	body := `{"PartitionKey":"p","RowKey":"r","From":"` + r.URL.Host + `"}`
	h = http.Header{"Content-Type": {"application/json"}, "Etag": {`W/"1"`}}
	code := 200
	if r.Method != http.MethodGet {
		code, body = 204, ""
	}
	return &http.Response{StatusCode: code, Header: h, Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
}

// On the service the secondary is <account>-secondary.table.<suffix>.
func TestSecondaryHostDerived(t *testing.T) {
	const key = "b3RoZXJrZXk="
	fake := &fakeHosts{busy: map[string]bool{"acct.table.core.windows.net": true}}
	svc, err := table.NewService("AccountName=acct;AccountKey="+key, &table.Options{Location: table.PrimaryThenSecondary, Transport: fake, Retry: &retry.Policy{MaxAttempts: 1}})
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := table.New[Where](svc, "orders")
	if err != nil {
		t.Fatal(err)
	}
	e, from, err := getFrom(context.Background(), tbl, "p", "r", nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := "acct-secondary.table.core.windows.net"; e.From != want || from != locSecondary {
		t.Errorf("Get = %q from %v, want %q from Secondary", e.From, from, want)
	}
	if want := "GET acct.table.core.windows.net,GET acct-secondary.table.core.windows.net"; strings.Join(fake.hosts, ",") != want {
		t.Errorf("hosts asked = %v, want %s", fake.hosts, want)
	}
}

func TestLocationOptions(t *testing.T) {
	const key = "b3RoZXJrZXk="
	dev := "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=" + devKey + ";TableEndpoint=http://127.0.0.1:10002/devstoreaccount1"
	tests := []struct {
		name string
		cs   string
		o    table.Options
		want error
	}{
		{"derived secondary", "AccountName=acct;AccountKey=" + key, table.Options{Location: table.SecondaryOnly}, nil},
		{"explicit secondary", dev + ";TableSecondaryEndpoint=http://127.0.0.1:10012/devstoreaccount1", table.Options{Location: table.PrimaryThenSecondary}, nil},
		{"option secondary", dev, table.Options{Location: table.SecondaryOnly, SecondaryEndpoint: "http://azurite2:10002/devstoreaccount1"}, nil},
		{"emulator's secondary derived", dev, table.Options{Location: table.PrimaryThenSecondary}, nil},
		{"dev storage's secondary derived", "UseDevelopmentStorage=true", table.Options{Location: table.SecondaryOnly}, nil},
		{"emulator primary only", dev, table.Options{}, nil},
		{"custom domain has none", "TableEndpoint=https://tables.example.com;AccountName=acct;AccountKey=" + key, table.Options{Location: table.SecondaryOnly}, tablekit.ErrInvalid},
		{"cosmos has none", "TableEndpoint=https://acct.table.cosmos.azure.com;AccountName=acct;AccountKey=" + key, table.Options{Location: table.SecondaryOnly}, tablekit.ErrUnsupported},
		{"cosmos by option has none", "TableEndpoint=https://tables.example.com;AccountName=acct;AccountKey=" + key, table.Options{Location: table.PrimaryThenSecondary, Backend: table.CosmosDB}, tablekit.ErrUnsupported},
		{"unknown backend", "AccountName=acct;AccountKey=" + key, table.Options{Backend: 7}, tablekit.ErrInvalid},
		{"emulator's secondary path", dev + ";TableSecondaryEndpoint=http://127.0.0.1:10002/devstoreaccount1-secondary", table.Options{Location: table.SecondaryOnly}, nil},
		{"secondary path differs", dev + ";TableSecondaryEndpoint=http://127.0.0.1:10012/otheraccount", table.Options{Location: table.SecondaryOnly}, tablekit.ErrInvalid},
		{"secondary over http", "AccountName=acct;AccountKey=" + key + ";TableSecondaryEndpoint=http://acct-secondary.table.core.windows.net", table.Options{}, tablekit.ErrInvalid},
		{"secondary not a URL", "AccountName=acct;AccountKey=" + key + ";TableSecondaryEndpoint=nohost", table.Options{}, tablekit.ErrInvalid},
		{"unknown mode", "AccountName=acct;AccountKey=" + key, table.Options{Location: 7}, tablekit.ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := table.NewService(tt.cs, &tt.o)
			if tt.want == nil && err != nil || tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("NewService error = %v, want %v", err, tt.want)
			}
		})
	}
	cs, err := table.ParseConnectionString(dev + ";TableSecondaryEndpoint=http://127.0.0.1:10012/devstoreaccount1/")
	if err != nil || cs.SecondaryEndpoint != "http://127.0.0.1:10012/devstoreaccount1" {
		t.Errorf("ParseConnectionString SecondaryEndpoint = %q, %v; want it without the slash", cs.SecondaryEndpoint, err)
	}
}

// secondaryPathRig is the setup of the TestAzuriteSecondaryPath tests: a
// table of three entities on the binary's Azurite, whose read-access
// secondary is <account>-secondary on the same host and port, behind the
// fault proxy that counts where each request went and can make the primary
// fail.
type secondaryPathRig struct {
	env                *testenv.Env
	ctx                context.Context
	proxy              *faults.Proxy
	direct             *table.Table[Where]
	primary, secondary string // the paths of the account and of its secondary
	base               string // connection string through the proxy
}

func newSecondaryPathRig(t *testing.T) *secondaryPathRig {
	t.Helper()
	env := testenv.Azurite(t)
	ctx := testenv.Ctx(t)
	proxy, err := faults.Start(strings.TrimSuffix(env.Endpoint, "/"+env.Account))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { proxy.Close() })
	direct := testenv.NewTable[Where](t, env.NewService(t, nil))
	for _, rk := range []string{"r1", "r2", "r3"} {
		if _, err := direct.Upsert(ctx, Where{"p", rk, "stored"}, table.Replace); err != nil {
			t.Fatal(err)
		}
	}
	return &secondaryPathRig{
		env: env, ctx: ctx, proxy: proxy, direct: direct,
		primary:   "/" + env.Account + "/",
		secondary: "/" + env.Account + "-secondary/",
		base:      "DefaultEndpointsProtocol=http;AccountName=" + env.Account + ";AccountKey=" + env.Key + ";TableEndpoint=" + proxy.Endpoint(env.Account),
	}
}

// open opens the rig's table through the proxy with connection string cs.
func (r *secondaryPathRig) open(t *testing.T, cs string, mode table.LocationMode) *table.Table[Where] {
	t.Helper()
	svc, err := table.NewService(cs, &table.Options{Location: mode, Retry: &retry.Policy{MaxAttempts: 2, InitialInterval: time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := table.New[Where](svc, r.direct.Name())
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// TestAzuriteSecondaryPath reads from Azurite's read-access secondary,
// derived from the endpoint or given in the connection string, in every
// Location mode, by Get and by query.
func TestAzuriteSecondaryPath(t *testing.T) {
	r := newSecondaryPathRig(t)
	env, ctx, proxy, base, primary, secondary := r.env, r.ctx, r.proxy, r.base, r.primary, r.secondary
	open := r.open
	// The primary's reads fail; its secondary's do not.
	busy := faults.Rule{Match: func(r *http.Request) bool {
		return r.Method == http.MethodGet && !strings.Contains(r.URL.Path, "-secondary")
	}, Fault: faults.Status(http.StatusServiceUnavailable, "ServerBusy", nil)}

	tests := []struct {
		name     string
		cs       string
		mode     table.LocationMode
		fail     bool
		selected bool
		wantFrom location
	}{
		{"primary only", base, table.PrimaryOnly, false, false, locPrimary},
		{"secondary only, derived", base, table.SecondaryOnly, false, false, locSecondary},
		{"secondary only, select", base, table.SecondaryOnly, false, true, locSecondary},
		{"secondary only, in the connection string", base + ";TableSecondaryEndpoint=" + proxy.Endpoint(env.Account) + "-secondary", table.SecondaryOnly, false, false, locSecondary},
		{"fail over, healthy", base, table.PrimaryThenSecondary, false, false, locPrimary},
		{"fail over, busy", base, table.PrimaryThenSecondary, true, false, locSecondary},
		{"fail over, busy, select", base, table.PrimaryThenSecondary, true, true, locSecondary},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.fail {
				proxy.SetRules(busy)
			} else {
				proxy.SetRules()
			}
			defer proxy.SetRules()
			tbl := open(t, tt.cs, tt.mode)
			proxy.Reset()
			o := &table.GetOptions{}
			if tt.selected {
				o.Select = []string{"From"}
			}
			got, from, err := getFrom(ctx, tbl, "p", "r1", o)
			if err != nil || got.From != "stored" || from != tt.wantFrom {
				t.Fatalf("Get = %+v from %v, %v; want the entity from %v", got, from, err, tt.wantFrom)
			}
			var rl table.ReadLocations
			n := 0
			for _, err := range query.New(tbl).Where(query.Partition("p")).PageSize(2).All(table.WithReadLocations(ctx, &rl)) {
				if err != nil {
					t.Fatal(err)
				}
				n++
			}
			wantSecondary := int64(0)
			if tt.wantFrom == locSecondary {
				wantSecondary = 2 // two pages
			}
			if n != 3 || rl.Secondary() != wantSecondary || rl.Primary() != 2-wantSecondary {
				t.Errorf("query: %d entities, %d pages from the primary, %d from the secondary; want 3, %d, %d", n, rl.Primary(), rl.Secondary(), 2-wantSecondary, wantSecondary)
			}
			askedPrimary := proxy.Count("GET "+primary) > 0
			askedSecondary := proxy.Count("GET "+secondary) > 0
			if askedPrimary != (tt.mode != table.SecondaryOnly) || askedSecondary != (tt.wantFrom == locSecondary) {
				t.Errorf("asked the primary %v, the secondary %v (%v)", askedPrimary, askedSecondary, proxy.Counts())
			}
		})
	}
}

// TestAzuriteSecondaryPathWrites: writes stay on the primary, whatever the
// Location mode.
func TestAzuriteSecondaryPathWrites(t *testing.T) {
	r := newSecondaryPathRig(t)
	ctx, proxy, secondary, base, open := r.ctx, r.proxy, r.secondary, r.base, r.open
	tbl := open(t, base, table.SecondaryOnly)
	proxy.Reset()
	if _, err := tbl.Upsert(ctx, Where{"p", "w", "written"}, table.Replace); err != nil {
		t.Fatal(err)
	}
	if n := proxy.Count(secondary); n != 0 {
		t.Errorf("%d requests to the secondary, want none (%v)", n, proxy.Counts())
	}
}

// TestAzuriteSecondaryPathSAS: a SAS is checked on the secondary too;
// tables from a service SAS and from a table SAS URL read there.
func TestAzuriteSecondaryPathSAS(t *testing.T) {
	r := newSecondaryPathRig(t)
	env, ctx, proxy, direct, secondary := r.env, r.ctx, r.proxy, r.direct, r.secondary
	cred, err := sas.NewCredential(env.Account, env.Key)
	if err != nil {
		t.Fatal(err)
	}
	account, err := sas.AccountSignature{Permissions: sas.AccountRead, ResourceTypes: sas.ResourceService | sas.ResourceObject,
		Expiry: time.Now().Add(time.Hour), Protocol: sas.HTTPSAndHTTP}.Sign(cred)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := table.NewServiceWithSAS(proxy.Endpoint(env.Account)+"/?"+account.Encode(), &table.Options{Location: table.SecondaryOnly})
	if err != nil {
		t.Fatal(err)
	}
	fromService, err := table.New[Where](svc, direct.Name())
	if err != nil {
		t.Fatal(err)
	}
	token, err := sas.TableSignature{Table: direct.Name(), Permissions: sas.Read, Expiry: time.Now().Add(time.Hour), Protocol: sas.HTTPSAndHTTP}.Sign(cred)
	if err != nil {
		t.Fatal(err)
	}
	u, err := sas.TableURL(proxy.Endpoint(env.Account), direct.Name(), token)
	if err != nil {
		t.Fatal(err)
	}
	fromURL, err := openSAS[Where](u, &table.Options{Location: table.SecondaryOnly})
	if err != nil {
		t.Fatal(err)
	}
	for name, tbl := range map[string]*table.Table[Where]{"account SAS": fromService, "table SAS": fromURL} {
		proxy.Reset()
		got, from, err := getFrom(ctx, tbl, "p", "r1", nil)
		if err != nil || got.From != "stored" || from != locSecondary || proxy.Count("GET "+secondary) != 1 {
			t.Errorf("%s: Get = %+v from %v, %v (%v); want the entity from the secondary", name, got, from, err, proxy.Counts())
		}
	}
}

// TestAzuriteSecondaryPathStats: Stats is answered on the secondary, and
// sent there only.
func TestAzuriteSecondaryPathStats(t *testing.T) {
	r := newSecondaryPathRig(t)
	env, ctx, proxy, base := r.env, r.ctx, r.proxy, r.base
	svc, err := table.NewService(base, &table.Options{Retry: &retry.Policy{MaxAttempts: 1}})
	if err != nil {
		t.Fatal(err)
	}
	proxy.Reset()
	st, err := svc.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Status != aztables.GeoReplicationStatusLive || st.LastSyncTime.IsZero() {
		t.Errorf("Stats = %+v, want live with a last sync time", st)
	}
	if proxy.Count("GET /"+env.Account+"-secondary") != 1 || len(proxy.Counts()) != 1 {
		t.Errorf("stats requests %v, want one to the secondary", proxy.Counts())
	}
}

// location is the endpoint that served a read, as a ReadLocations tells.
type location int

const (
	locPrimary location = iota
	locSecondary
)

func (l location) String() string { return [...]string{"primary", "secondary"}[l] }

// getFrom is Get with the endpoint that served it.
func getFrom[T any](ctx context.Context, tbl *table.Table[T], pk, rk string, o *table.GetOptions) (T, location, error) {
	var rl table.ReadLocations
	e, err := tbl.Get(table.WithReadLocations(ctx, &rl), pk, rk, o)
	from := locPrimary
	if rl.Secondary() > 0 {
		from = locSecondary
	}
	return e, from, err
}
