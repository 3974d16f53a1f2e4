// SAS delegation: let a client read its own data directly, without the key.
//
// Problem: a browser or device needs to read one customer's rows. Giving it
// the account key gives it everything, forever; proxying every read through
// your service costs latency and capacity.
//
// Pattern: the service, which holds the key, issues a shared access signature
// (SAS): a signed URL that allows only reads, only of one table and one
// partition, and only for a few minutes. The client talks to Table storage
// directly with that URL. The key never leaves the service, and nothing in
// this program prints it or a signature (sas.Parse gives a redacted form).
//
// Guarantee checked: the SAS client reads its partition; its write is refused
// with 403 (and nothing is written); an expired token is refused with 403.
// The service also refuses reads outside the partition; the Azurite emulator
// only checks that the key range is signed and does not enforce it, so that
// last check runs against a real account only.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log"
	"os"
	"strings"
	"time"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/query"
	"github.com/tablekit/tablekit/sas"
	"github.com/tablekit/tablekit/table"
)

type Order struct {
	PartitionKey string // customer
	RowKey       string // order number
	Total        float64
}

func main() {
	log.SetFlags(0)
	log.SetPrefix("sas-delegation: ")
	if err := run(); err != nil {
		log.Fatalf("FAIL: %v", err)
	}
}

func run() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	// --- The service: holds the account key, owns the table. ---
	cs := connectionString()
	svc, err := table.NewService(cs, nil)
	if err != nil {
		return err
	}
	orders, err := table.New[Order](svc, uniqueName("orders"))
	if err != nil {
		return err
	}
	if err := svc.CreateTable(ctx, orders.Name()); err != nil {
		return err
	}
	defer svc.DeleteTable(context.WithoutCancel(ctx), orders.Name())
	for _, o := range []Order{
		{"alice", "0001", 10}, {"alice", "0002", 20}, {"alice", "0003", 30},
		{"bob", "0001", 99},
	} {
		if _, err := orders.Add(ctx, o); err != nil {
			return err
		}
	}
	fmt.Printf("service: table %s holds 3 orders of alice and 1 of bob\n", orders.Name())

	// The issuer signs with the account key its service already holds.
	cred, err := sas.ServiceCredential(svc)
	if err != nil {
		return err
	}
	// tablekit connects over plain http only to the emulator (whose key is
	// public) or when told to, so http here means the emulator.
	emulator := strings.HasPrefix(svc.Endpoint(), "http://")
	// A token is a bearer secret: https only. The Azurite emulator serves
	// plain http, so for it (and only for it) allow http as well.
	protocol := sas.HTTPSOnly
	if emulator {
		protocol = sas.HTTPSAndHTTP
	}
	issue := func(expiry time.Time) (string, error) {
		token, err := sas.TableSignature{
			Table:             orders.Name(),
			Permissions:       sas.Read, // least privilege: read only
			Expiry:            expiry,   // short-lived
			StartPartitionKey: "alice",  // one partition: equal start and end
			EndPartitionKey:   "alice",
			Protocol:          protocol,
		}.Sign(cred)
		if err != nil {
			return "", err
		}
		return sas.TableURL(svc.Endpoint(), orders.Name(), token)
	}
	sasURL, err := issue(time.Now().Add(15 * time.Minute))
	if err != nil {
		return err
	}
	parsed, err := sas.Parse(sasURL)
	if err != nil {
		return err
	}
	fmt.Printf("service: issued %s\n", parsed) // signature redacted

	// --- The client: has only the URL. ---
	alice, err := openSAS[Order](sasURL)
	if err != nil {
		return err
	}
	mine, err := query.Collect(query.New(alice).Where(query.Partition("alice")).All(ctx))
	if err != nil {
		return err
	}
	fmt.Printf("client: read %d orders of alice\n", len(mine))
	if len(mine) != 3 {
		return fmt.Errorf("client read %d orders, want 3", len(mine))
	}

	_, err = alice.Add(ctx, Order{PartitionKey: "alice", RowKey: "0004", Total: 1})
	fmt.Printf("client: write refused: %v\n", err)
	if !errors.Is(err, tablekit.ErrForbidden) {
		return fmt.Errorf("write with a read-only SAS: got %v, want 403", err)
	}
	if _, err := orders.Get(ctx, "alice", "0004", nil); !errors.Is(err, tablekit.ErrNotFound) {
		return fmt.Errorf("the refused write is stored (or the check failed: %v)", err)
	}

	_, err = alice.Get(ctx, "bob", "0001", nil)
	switch {
	case errors.Is(err, tablekit.ErrForbidden):
		fmt.Println("client: read of bob's partition refused (403)")
	case emulator && err == nil:
		fmt.Println("client: read of bob's partition allowed: Azurite does not enforce SAS key ranges (the service refuses it)")
	default:
		return fmt.Errorf("read outside the SAS key range: got %v, want 403", err)
	}

	// A token past its expiry stops working; the client must ask for a new
	// one (sas.Parsed.ExpiresWithin tells it when).
	expiredURL, err := issue(time.Now().Add(-time.Minute))
	if err != nil {
		return err
	}
	expired, err := openSAS[Order](expiredURL)
	if err != nil {
		return err
	}
	_, err = expired.Get(ctx, "alice", "0001", nil)
	fmt.Printf("client: expired token refused: %v\n", errors.Is(err, tablekit.ErrForbidden))
	if !errors.Is(err, tablekit.ErrForbidden) {
		return fmt.Errorf("read with an expired SAS: got %v, want 403", err)
	}
	fmt.Println("OK: read-only, one-partition, short-lived access without the key")
	return nil
}

// connectionString returns TABLEKIT_CONNECTION_STRING, or the local Azurite
// development account when it is not set.
func connectionString() string {
	if cs := os.Getenv("TABLEKIT_CONNECTION_STRING"); cs != "" {
		return cs
	}
	return "UseDevelopmentStorage=true"
}

// uniqueName returns prefix plus random hex: a fresh table per run, because a
// deleted table's name cannot be reused for 40 seconds or more.
func uniqueName(prefix string) string {
	b := make([]byte, 4)
	rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

// openSAS opens the table a table SAS URL grants, with the SAS as the only
// credential: what the table allows is what the SAS permits.
func openSAS[T any](sasURL string) (*table.Table[T], error) {
	p, err := sas.Parse(sasURL)
	if err != nil {
		return nil, err
	}
	svc, err := table.NewServiceWithSAS(sasURL, nil)
	if err != nil {
		return nil, err
	}
	return table.New[T](svc, p.Table)
}
