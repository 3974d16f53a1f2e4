package cosmos_test

import (
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit/devtools/cosmos"
	"github.com/tablekit/tablekit/devtools/testenv"
)

func TestStartRejectsBadEndpoint(t *testing.T) {
	for _, ep := range []string{"", "http://127.0.0.1:1", "http://127.0.0.1:1/", "https://127.0.0.1:1/acct", "http://127.0.0.1:1/a/b", "::"} {
		if cs, err := cosmos.Start(ep, nil); err == nil {
			cs.Close()
			t.Errorf("Start(%q): got nil error, want one", ep)
		}
	}
}

func TestEndpoints(t *testing.T) {
	_, cs, _ := standIn(t, nil)
	tests := []struct{ got, want string }{
		{cs.Endpoint(), "https://devstoreaccount1.table.cosmos.azure.com"},
		{cs.LegacyEndpoint(), "https://devstoreaccount1.table.cosmosdb.azure.com"},
		{cs.ConnectionString("KEY"), "DefaultEndpointsProtocol=https;AccountName=devstoreaccount1;AccountKey=KEY;TableEndpoint=https://devstoreaccount1.table.cosmos.azure.com:443/;"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

// TestClientDialsOnlyTheAccount: the client reaches the account's two host
// names and nothing else; other names under the Cosmos DB suffixes are
// unknown hosts, and a -secondary one is counted.
func TestClientDialsOnlyTheAccount(t *testing.T) {
	_, cs, _ := standIn(t, nil)
	hc := cs.Client()
	defer hc.CloseIdleConnections()
	tests := []struct {
		url      string
		notFound bool   // a DNS "no such host"
		errPart  string // else an error containing this; "" for an answer
	}{
		{url: cs.Endpoint() + "/Tables"},
		{url: cs.LegacyEndpoint() + "/Tables"},
		{url: "https://DEVSTOREACCOUNT1.Table.Cosmos.Azure.com/Tables"},
		{url: "https://other.table.cosmos.azure.com/Tables", notFound: true},
		{url: "https://devstoreaccount1-secondary.table.cosmos.azure.com/Tables", notFound: true},
		{url: "https://example.com/", errPart: "reaches only"},
		{url: "https://devstoreaccount1.table.cosmos.azure.com:8443/", errPart: "port 443"},
		{url: "http://devstoreaccount1.table.cosmos.azure.com/", errPart: "port 443"},
	}
	for _, tt := range tests {
		resp, err := hc.Get(tt.url)
		if err == nil {
			resp.Body.Close()
		}
		switch {
		case tt.notFound:
			var dns *net.DNSError
			if !errors.As(err, &dns) || !dns.IsNotFound {
				t.Errorf("GET %s: got %v, want a not-found DNS error", tt.url, err)
			}
		case tt.errPart != "":
			if err == nil || !strings.Contains(err.Error(), tt.errPart) {
				t.Errorf("GET %s: got %v, want an error with %q", tt.url, err, tt.errPart)
			}
		case err != nil:
			t.Errorf("GET %s: %v", tt.url, err)
		default:
			// Unsigned: Azurite answers 403, which proves the request got there.
			if got, want := resp.StatusCode, http.StatusForbidden; got != want {
				t.Errorf("GET %s: got %d, want %d", tt.url, got, want)
			}
		}
	}
	if got, want := cs.Stats().Unsupported["secondary"], 1; got != want {
		t.Errorf("secondary dials counted: got %d, want %d", got, want)
	}
}

// TestAztablesThroughStandIn: aztables, which treats these hosts as Cosmos
// DB (merges as POST with X-HTTP-Method: MERGE, at the top level and in a
// $batch), reads and writes through the stand-in on both host names.
func TestAztablesThroughStandIn(t *testing.T) {
	env, cs, tr := standIn(t, nil)
	for _, endpoint := range []string{cs.Endpoint(), cs.LegacyEndpoint()} {
		t.Run(strings.Split(endpoint, ".")[2], func(t *testing.T) {
			c, name := newNamedTable(t, service(t, env, endpoint, tr))
			cs.Reset()
			if _, err := c.AddEntity(testenv.Ctx(t), entity("p", "a", map[string]any{"N": "one"}), nil); err != nil {
				t.Fatalf("add: %v", err)
			}
			if _, err := c.UpsertEntity(testenv.Ctx(t), entity("p", "a", map[string]any{"M": "two"}), &aztables.UpsertEntityOptions{UpdateMode: aztables.UpdateModeMerge}); err != nil {
				t.Fatalf("merge: %v", err)
			}
			if got, want := cs.Count("POST /"+name+"(PartitionKey='p',RowKey='a')"), 1; got != want {
				t.Errorf("merges sent as POST: got %d, want %d", got, want)
			}
			got := props(t, c, "p", "a")
			if got["N"] != "one" || got["M"] != "two" {
				t.Errorf("after merge: got %v, want N=one and M=two", got)
			}
			_, err := c.SubmitTransaction(testenv.Ctx(t), []aztables.TransactionAction{
				{ActionType: aztables.TransactionTypeAdd, Entity: entity("p", "b", map[string]any{"N": "b"})},
				{ActionType: aztables.TransactionTypeUpdateMerge, Entity: entity("p", "a", map[string]any{"O": "three"})},
				{ActionType: aztables.TransactionTypeInsertReplace, Entity: entity("p", "c", map[string]any{"N": "c"})},
			}, nil)
			if err != nil {
				t.Fatalf("transaction: %v (reply %s)", err, short(tr.lastBody()))
			}
			got = props(t, c, "p", "a")
			if got["N"] != "one" || got["M"] != "two" || got["O"] != "three" {
				t.Errorf("after a merge in a $batch: got %v, want N, M and O", got)
			}
			if _, err := c.DeleteEntity(testenv.Ctx(t), "p", "b", nil); err != nil {
				t.Errorf("delete: %v", err)
			}
			n := 0
			pager := c.NewListEntitiesPager(nil)
			for pager.More() {
				page, err := pager.NextPage(testenv.Ctx(t))
				if err != nil {
					t.Fatalf("list: %v", err)
				}
				n += len(page.Entities)
			}
			if got, want := n, 2; got != want {
				t.Errorf("entities listed: got %d, want %d", got, want)
			}
		})
	}
}
