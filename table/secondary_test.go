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

	"github.com/tablekit/tablekit/devtools/azurite"
	"github.com/tablekit/tablekit/devtools/faults"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/query"
	"github.com/tablekit/tablekit/retry"
	"github.com/tablekit/tablekit/table"
)

type Where struct {
	PartitionKey, RowKey string
	From                 string
}

// Two emulators stand for the primary and the geo-secondary, holding
// different data so a read shows where it was served; the fault proxy in
// front of the primary makes it fail.
func TestSecondaryReads(t *testing.T) {
	env := testenv.Azurite(t)
	ctx := ctxT(t)
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
		if err := tbl.CreateTable(ctx); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = tbl.DeleteTable(context.Background()) })
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

	open := func(t *testing.T, mode table.LocationMode) *table.Table[Where] {
		t.Helper()
		cs := "DefaultEndpointsProtocol=http;AccountName=" + env.Account + ";AccountKey=" + env.Key +
			";TableEndpoint=" + proxy.Endpoint(env.Account) + ";TableSecondaryEndpoint=" + second.Endpoint()
		svc, err := table.NewService(cs, &table.Options{Location: mode, Retry: &retry.Policy{MaxAttempts: 2, InitialInterval: time.Millisecond}})
		if err != nil {
			t.Fatal(err)
		}
		tbl, err := table.New[Where](svc, name)
		if err != nil {
			t.Fatal(err)
		}
		return tbl
	}
	busy := faults.Rule{Match: faults.Method(http.MethodGet), Fault: faults.Status(http.StatusServiceUnavailable, "ServerBusy", nil)}

	getTests := []struct {
		name     string
		mode     table.LocationMode
		fail     bool // the primary answers 503 ServerBusy to every GET
		rowKey   string
		selected bool // Get with Select (a query underneath)
		want     string
		wantFrom table.Location
		wantErr  error
	}{
		{"primary only, healthy", table.PrimaryOnly, false, "r1", false, "primary", table.Primary, nil},
		{"primary only, busy", table.PrimaryOnly, true, "r1", false, "", 0, table.ErrThrottled},
		{"fail over, healthy", table.PrimaryThenSecondary, false, "r1", false, "primary", table.Primary, nil},
		{"fail over, busy", table.PrimaryThenSecondary, true, "r1", false, "secondary", table.Secondary, nil},
		{"fail over, busy, select", table.PrimaryThenSecondary, true, "r1", true, "secondary", table.Secondary, nil},
		{"fail over, not found is final", table.PrimaryThenSecondary, false, "lagging", false, "", 0, table.ErrNotFound},
		{"secondary only", table.SecondaryOnly, false, "r1", false, "secondary", table.Secondary, nil},
		{"secondary only, primary busy", table.SecondaryOnly, true, "r1", false, "secondary", table.Secondary, nil},
	}
	for _, tt := range getTests {
		t.Run("get/"+tt.name, func(t *testing.T) {
			if tt.fail {
				proxy.SetRules(busy)
			} else {
				proxy.SetRules()
			}
			proxy.Reset()
			tbl := open(t, tt.mode)
			from := table.Location(-1)
			o := &table.GetOptions{ServedFrom: &from}
			if tt.selected {
				o.Select = []string{"From"}
			}
			got, err := tbl.Get(ctx, "p", tt.rowKey, o)
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

	// Package query gets the routing without knowing about it; a
	// ReadLocations in the context tells where its pages came from.
	t.Run("query fails over", func(t *testing.T) {
		proxy.SetRules(busy)
		tbl := open(t, table.PrimaryThenSecondary)
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
	})

	// Writes never go to the secondary, in any mode and whatever fails.
	t.Run("writes stay on the primary", func(t *testing.T) {
		proxy.SetRules()
		tbl := open(t, table.SecondaryOnly)
		if _, err := tbl.Upsert(ctx, Where{"p", "w", "written"}, table.Replace); err != nil {
			t.Fatal(err)
		}
		if e, err := direct["primary"].Get(ctx, "p", "w", nil); err != nil || e.From != "written" {
			t.Errorf("primary has %+v, %v; want the write", e, err)
		}
		if _, err := direct["secondary"].Get(ctx, "p", "w", nil); !errors.Is(err, table.ErrNotFound) {
			t.Errorf("secondary Get of the write: error = %v, want ErrNotFound", err)
		}
		proxy.SetRules(faults.Rule{Fault: faults.Status(http.StatusServiceUnavailable, "ServerBusy", nil)})
		tbl = open(t, table.PrimaryThenSecondary)
		if _, err := tbl.Upsert(ctx, Where{"p", "w2", "written"}, table.Replace); !errors.Is(err, table.ErrThrottled) {
			t.Errorf("Upsert with a busy primary: error = %v, want ErrThrottled", err)
		}
		if _, err := direct["secondary"].Get(ctx, "p", "w2", nil); !errors.Is(err, table.ErrNotFound) {
			t.Errorf("the failed write reached the secondary: %v", err)
		}
	})

	// Stats is answered on the secondary only, so it is sent there.
	t.Run("stats go to the secondary", func(t *testing.T) {
		proxy.SetRules()
		cs := "DefaultEndpointsProtocol=http;AccountName=" + env.Account + ";AccountKey=" + env.Key +
			";TableEndpoint=" + proxy.Endpoint(env.Account) + ";TableSecondaryEndpoint=" + second.Endpoint()
		svc, err := table.NewService(cs, &table.Options{NoRetry: true})
		if err != nil {
			t.Fatal(err)
		}
		proxy.Reset()
		_, err = svc.Stats(ctx)
		if !errors.Is(err, table.ErrBadRequest) && !errors.Is(err, table.ErrService) {
			t.Errorf("Stats on Azurite: error = %v, want a typed service error", err)
		}
		if n := proxy.Counts(); len(n) != 0 {
			t.Errorf("the primary saw %v, want no stats request", n)
		}
	})
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
	svc, err := table.NewService("AccountName=acct;AccountKey="+key, &table.Options{Location: table.PrimaryThenSecondary, Transport: fake, NoRetry: true})
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := table.New[Where](svc, "orders")
	if err != nil {
		t.Fatal(err)
	}
	var from table.Location
	e, err := tbl.Get(context.Background(), "p", "r", &table.GetOptions{ServedFrom: &from})
	if err != nil {
		t.Fatal(err)
	}
	if want := "acct-secondary.table.core.windows.net"; e.From != want || from != table.Secondary {
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
		{"emulator without secondary", dev, table.Options{Location: table.PrimaryThenSecondary}, table.ErrInvalidOptions},
		{"emulator primary only", dev, table.Options{}, nil},
		{"cosmos has none", "TableEndpoint=https://acct.table.cosmos.azure.com;AccountName=acct;AccountKey=" + key, table.Options{Location: table.SecondaryOnly}, table.ErrInvalidOptions},
		{"secondary path differs", dev + ";TableSecondaryEndpoint=http://127.0.0.1:10012/devstoreaccount1-secondary", table.Options{Location: table.SecondaryOnly}, table.ErrInvalidOptions},
		{"secondary over http", "AccountName=acct;AccountKey=" + key + ";TableSecondaryEndpoint=http://acct-secondary.table.core.windows.net", table.Options{}, table.ErrInvalidConnectionString},
		{"secondary not a URL", "AccountName=acct;AccountKey=" + key + ";TableSecondaryEndpoint=nohost", table.Options{}, table.ErrInvalidConnectionString},
		{"unknown mode", "AccountName=acct;AccountKey=" + key, table.Options{Location: 7}, table.ErrInvalidOptions},
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
