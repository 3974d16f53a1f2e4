package sas_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit/sas"
	"github.com/tablekit/tablekit/table"
)

// Azurite's public development account; use your own account and key.
const (
	account = "devstoreaccount1"
	key     = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
)

// A read-only token for one customer's partition, valid for one hour. Times
// are fixed here so the output is stable; use time.Now().Add(time.Hour) and
// leave Start unset in real code.
func ExampleTableSignature_Sign() {
	cred, err := sas.NewCredential(account, key)
	if err != nil {
		log.Fatal(err)
	}
	start := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	token, err := sas.TableSignature{
		Table:             "orders",
		Permissions:       sas.Read,
		Start:             start,
		Expiry:            start.Add(time.Hour),
		StartPartitionKey: "customer-42",
		EndPartitionKey:   "customer-42",
	}.Sign(cred)
	if err != nil {
		log.Fatal(err)
	}
	u, err := sas.TableURL("https://"+account+".table.core.windows.net", "orders", token)
	if err != nil {
		log.Fatal(err)
	}
	p, err := sas.Parse(u)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(p) // log the redacted form, never the token itself
	// Output:
	// https://devstoreaccount1.table.core.windows.net/orders?epk=customer-42&se=2025-06-01T13%3A00%3A00Z&sig=REDACTED&sp=r&spk=customer-42&spr=https&st=2025-06-01T12%3A00%3A00Z&sv=2019-02-02&tn=orders
}

// Times in any zone are signed and sent in UTC.
func ExampleTableSignature_Sign_localTime() {
	cred, _ := sas.NewCredential(account, key)
	paris := time.FixedZone("CEST", 2*3600)
	token, err := sas.TableSignature{
		Table:       "orders",
		Permissions: sas.Add,
		Start:       time.Date(2025, 6, 1, 14, 0, 0, 0, paris),
		Expiry:      time.Date(2025, 6, 1, 14, 30, 0, 0, paris),
	}.Sign(cred)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(token.Get("st"), token.Get("se"))
	// Output: 2025-06-01T12:00:00Z 2025-06-01T12:30:00Z
}

// Validation happens before signing and names the field.
func ExampleTableSignature_Sign_invalid() {
	cred, _ := sas.NewCredential(account, key)
	_, err := sas.TableSignature{Table: "orders", Expiry: time.Now().Add(time.Hour)}.Sign(cred)
	fmt.Println(err)
	// Output: tablekit: invalid sas: Permissions: must not be empty without a stored access policy (Identifier)
}

// An account SAS that lists tables and reads entities in every table.
func ExampleAccountSignature_Sign() {
	cred, _ := sas.NewCredential(account, key)
	start := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	token, err := sas.AccountSignature{
		Permissions:   sas.AccountRead | sas.AccountList,
		ResourceTypes: sas.ResourceContainer | sas.ResourceObject,
		Start:         start,
		Expiry:        start.Add(30 * time.Minute),
		IP:            sas.IPRange{Start: netip.MustParseAddr("203.0.113.0"), End: netip.MustParseAddr("203.0.113.255")},
	}.Sign(cred)
	if err != nil {
		log.Fatal(err)
	}
	p, _ := sas.Parse(token.Encode())
	fmt.Println(p)
	// Output:
	// se=2025-06-01T12%3A30%3A00Z&sig=REDACTED&sip=203.0.113.0-203.0.113.255&sp=rl&spr=https&srt=co&ss=t&st=2025-06-01T12%3A00%3A00Z&sv=2019-02-02
}

// Permissions print in the documented order whatever order they are
// combined in.
func ExamplePermissions() {
	fmt.Println(sas.Delete|sas.Read|sas.Update, sas.AccountList|sas.AccountRead|sas.AccountUpdate)
	p, _ := sas.ParsePermissions("dar")
	fmt.Println(p == sas.Read|sas.Add|sas.Delete)
	// Output:
	// rud rlu
	// true
}

// A Credential never shows its key.
func ExampleCredential() {
	cred, _ := sas.NewCredential(account, key)
	fmt.Printf("%v\n%#v\n", cred, cred)
	// Output:
	// sas.Credential{Account: devstoreaccount1, Key: REDACTED}
	// sas.Credential{Account: devstoreaccount1, Key: REDACTED}
}

// Parse a token received from an issuer to decide when to renew it.
func ExampleParse() {
	p, err := sas.Parse("https://acct.table.core.windows.net/orders?sv=2019-02-02&tn=orders&sp=r" +
		"&st=2025-06-01T12%3A00%3A00Z&se=2025-06-01T13%3A00%3A00Z&spk=customer-42&epk=customer-42&spr=https&sig=c2lnbmF0dXJl")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(p.Kind == sas.KindTable, p.Table, p.Permissions, p.StartPartitionKey, p.Expiry)
	fmt.Println("renew:", p.ExpiresWithin(5*time.Minute)) // long expired by now
	// Output:
	// true orders r customer-42 2025-06-01 13:00:00 +0000 UTC
	// renew: true
}

// TableURL puts exactly one slash between the endpoint and the table, also
// for Azurite's path-style endpoint.
func ExampleTableURL() {
	token := url.Values{"sv": {"2019-02-02"}, "sig": {"c2ln"}, "spr": {"https,http"}}
	u, err := sas.TableURL("http://127.0.0.1:10002/devstoreaccount1/", "orders", token)
	fmt.Println(u, err)
	// Output: http://127.0.0.1:10002/devstoreaccount1/orders?sig=c2ln&spr=https%2Chttp&sv=2019-02-02 <nil>
}

// A revocable token: the stored access policy holds the permissions and
// times, the SAS only names it, and removing the policy withdraws every
// such token. (The service may take up to 30 seconds to apply a change of
// policies; the emulator applies it at once.)
func ExampleSetPolicies() {
	ctx := context.Background()
	svc, err := table.NewService(os.Getenv("TABLEKIT_CONNECTION_STRING"), nil)
	if err != nil {
		log.Fatal(err)
	}
	const name = "examplepolicies"
	if err := svc.CreateTable(ctx, name); err != nil {
		log.Fatal(err)
	}
	defer svc.DeleteTable(ctx, name)
	if _, err := svc.Raw().NewClient(name).AddEntity(ctx, []byte(`{"PartitionKey":"customer-42","RowKey":"order-1"}`), nil); err != nil {
		log.Fatal(err)
	}

	err = sas.SetPolicies(ctx, svc, name, []sas.Policy{{
		ID:          "mobile-readers",
		Permissions: sas.Read,
		Start:       time.Now().Add(-15 * time.Minute),
		Expiry:      time.Now().Add(24 * time.Hour),
	}})
	if err != nil {
		log.Fatal(err)
	}
	cred, err := sas.ServiceCredential(svc) // the key svc connects with
	if err != nil {
		log.Fatal(err)
	}
	// HTTPSAndHTTP only because the emulator serves http; keep the default.
	token, err := sas.TableSignature{Table: name, Identifier: "mobile-readers", Protocol: sas.HTTPSAndHTTP}.Sign(cred)
	if err != nil {
		log.Fatal(err)
	}
	u, err := sas.TableURL(svc.Endpoint(), name, token)
	if err != nil {
		log.Fatal(err)
	}
	reader, err := aztables.NewClientWithNoCredential(u, nil)
	if err != nil {
		log.Fatal(err)
	}
	_, err = reader.GetEntity(ctx, "customer-42", "order-1", nil)
	fmt.Println("read with the policy:", err)

	// Later: every token naming the policy stops working.
	if err := sas.SetPolicies(ctx, svc, name, nil); err != nil {
		log.Fatal(err)
	}
	_, err = reader.GetEntity(ctx, "customer-42", "order-1", nil)
	var re *azcore.ResponseError
	fmt.Println("read after removing it:", errors.As(err, &re) && re.StatusCode == http.StatusForbidden)
	// Output:
	// read with the policy: <nil>
	// read after removing it: true
}
