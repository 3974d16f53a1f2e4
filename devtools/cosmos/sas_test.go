package cosmos_test

import (
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit/devtools/testenv"
)

// TestSASThroughStandIn: a table SAS made for the account's Cosmos DB host
// works through the stand-in, its own follow-up requests (a query's later
// pages) included: they carry the client's SAS query. The SAS must allow
// http: Azurite checks the protocol of its own connection, which is the
// stand-in's plain http.
func TestSASThroughStandIn(t *testing.T) {
	env, cs, tr := standIn(t, nil)
	_, name := newNamedTable(t, service(t, env, cs.Endpoint(), tr))
	// aztables' GetTableSASURL joins the table without a slash: sign here.
	qs, err := aztables.SASSignatureValues{
		Protocol:    aztables.SASProtocolHTTPSandHTTP,
		StartTime:   time.Now().UTC().Add(-time.Minute),
		ExpiryTime:  time.Now().UTC().Add(time.Hour),
		Permissions: aztables.SASPermissions{Read: true, Add: true}.String(),
		TableName:   name,
	}.Sign(env.Credential(t))
	if err != nil {
		t.Fatal(err)
	}
	sasURL := cs.Endpoint() + "/" + name + "?" + qs
	opts := &aztables.ClientOptions{ClientOptions: azcore.ClientOptions{Transport: tr, Retry: policy.RetryOptions{MaxRetries: -1}}}
	sc, err := aztables.NewClientWithNoCredential(sasURL, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, rk := range []string{"1", "2", "3"} {
		if _, err := sc.AddEntity(testenv.Ctx(t), entity("p", rk, nil), nil); err != nil {
			t.Fatalf("add with a SAS: %v", err)
		}
	}
	if got := len(flat(pages(t, sc, aztables.ListEntitiesOptions{Top: ptr[int32](2)}))); got != 3 {
		t.Errorf("listed with a SAS: got %d entities, want 3", got)
	}
}
