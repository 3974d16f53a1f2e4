// Quickstart: a tour of tablekit against a local Azurite (or a real account).
//
//	make demo
//	# or: go run ./devtools/cmd/withazurite -- go run ./examples/quickstart
//	# or: TABLEKIT_CONNECTION_STRING='DefaultEndpointsProtocol=https;AccountName=...;AccountKey=...' go run ./examples/quickstart
//	# or, with Azurite in a container named azurite:
//	#     TABLEKIT_CONNECTION_STRING='UseDevelopmentStorage=true;DevelopmentStorageProxyUri=http://azurite' go run ./examples/quickstart
//
// It stores Go structs as entities, reads one back by key, updates it safely
// when someone else changed it meanwhile (ETags), lists a partition, writes
// several entities in one atomic transaction, hands out a read-only link
// (SAS) that cannot write, bulk-writes 1,000 entities and reads them back
// page by page with a resumable token. Each step checks its result; the program exits
// non-zero if one does not hold, and deletes its table either way.
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
	"github.com/tablekit/tablekit/batch"
	"github.com/tablekit/tablekit/query"
	"github.com/tablekit/tablekit/sas"
	"github.com/tablekit/tablekit/table"
)

// Order is an entity: a Go struct. PartitionKey and RowKey are its keys;
// entities with the same PartitionKey can be queried and written together.
// table.Meta receives the ETag (version) and Timestamp of what was read.
type Order struct {
	PartitionKey string // the customer
	RowKey       string // the order number, zero-padded so it sorts
	Item         string
	Quantity     int32
	Total        float64
	Placed       time.Time
	table.Meta
}

func main() {
	log.SetFlags(0)
	log.SetPrefix("quickstart: ")
	if err := run(); err != nil {
		log.Fatalf("FAIL: %v", err)
	}
}

func run() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	// 1. Connect and create a table.
	cs := connectionString()
	svc, err := table.NewService(cs, nil)
	if err != nil {
		return err
	}
	orders, err := table.New[Order](svc, uniqueName("quickstart"))
	if err != nil {
		return err
	}
	if err := svc.CreateTable(ctx, orders.Name()); err != nil {
		return err
	}
	defer svc.DeleteTable(context.WithoutCancel(ctx), orders.Name())
	fmt.Printf("1. Connected to %s and created table %s\n", svc.Endpoint(), orders.Name())

	// 2. Insert entities and read one back by its keys (a point read, the
	// cheapest read there is).
	now := time.Now().UTC().Truncate(time.Second)
	for i, item := range []string{"coffee", "tea", "cocoa"} {
		o := Order{PartitionKey: "alice", RowKey: table.PadUint(uint64(i+1), 6), Item: item, Quantity: 1, Total: 4.5, Placed: now}
		if _, err := orders.Add(ctx, o); err != nil {
			return err
		}
	}
	o, err := orders.Get(ctx, "alice", "000001", nil)
	if err != nil {
		return err
	}
	fmt.Printf("2. Added 3 orders for alice; read back alice/000001: %d x %s, %.2f\n", o.Quantity, o.Item, o.Total)
	if o.Item != "coffee" || !o.Placed.Equal(now) {
		return fmt.Errorf("read back %+v", o)
	}

	// 3. Optimistic concurrency. Two people edit the same order; each
	// update carries the ETag it read, so the second one cannot silently
	// overwrite the first.
	mine, err := orders.Get(ctx, "alice", "000001", nil)
	if err != nil {
		return err
	}
	theirs, err := orders.Get(ctx, "alice", "000001", nil)
	if err != nil {
		return err
	}
	theirs.Quantity = 2
	if _, err := orders.Update(ctx, theirs, table.Replace, theirs.ETag); err != nil {
		return err
	}
	mine.Total = 5.0
	_, err = orders.Update(ctx, mine, table.Replace, mine.ETag)
	if !errors.Is(err, tablekit.ErrPreconditionFailed) {
		return fmt.Errorf("stale update: got %v, want tablekit.ErrPreconditionFailed", err)
	}
	fmt.Println("3. A stale update was refused (ETag mismatch: someone changed the order first)")
	// Recover: read the current version, apply the change again, retry.
	mine, err = orders.Get(ctx, "alice", "000001", nil)
	if err != nil {
		return err
	}
	mine.Total = 5.0
	if _, err := orders.Update(ctx, mine, table.Replace, mine.ETag); err != nil {
		return err
	}
	if o, err = orders.Get(ctx, "alice", "000001", nil); err != nil {
		return err
	}
	fmt.Printf("   Re-read and retried: both changes kept (quantity %d, total %.2f)\n", o.Quantity, o.Total)
	if o.Quantity != 2 || o.Total != 5.0 {
		return fmt.Errorf("after recovery: quantity %d, total %.2f; want 2, 5.00", o.Quantity, o.Total)
	}

	// 4. Query one partition: every order of alice, in RowKey order.
	list, err := query.Collect(query.New(orders).Where(query.Partition("alice")).All(ctx))
	if err != nil {
		return err
	}
	var items []string
	for _, o := range list {
		items = append(items, o.Item)
	}
	fmt.Printf("4. Partition query for alice: %s\n", strings.Join(items, ", "))
	if len(list) != 3 {
		return fmt.Errorf("partition query: %d orders, want 3", len(list))
	}

	// 5. A transaction: several writes to one partition, all or nothing.
	tx := batch.New(orders)
	for i, item := range []string{"bagel", "muffin", "scone"} {
		tx.Add(Order{PartitionKey: "bob", RowKey: table.PadUint(uint64(i+1), 6), Item: item, Quantity: 1, Total: 3, Placed: now})
	}
	if _, err := tx.Submit(ctx); err != nil {
		return err
	}
	// Submitting it again fails (the orders exist), and writes nothing.
	tx2 := batch.New(orders).
		Add(Order{PartitionKey: "bob", RowKey: "000004", Item: "toast", Placed: now}).
		Add(Order{PartitionKey: "bob", RowKey: "000001", Item: "duplicate", Placed: now})
	_, err = tx2.Submit(ctx)
	bobs, qerr := query.Collect(query.New(orders).Where(query.Partition("bob")).All(ctx))
	if qerr != nil {
		return qerr
	}
	fmt.Printf("5. Transaction wrote 3 orders for bob; a second one with a duplicate was refused whole: bob has %d orders\n", len(bobs))
	if !errors.Is(err, tablekit.ErrAlreadyExists) || len(bobs) != 3 {
		return fmt.Errorf("failed transaction: err %v, bob has %d orders; want tablekit.ErrAlreadyExists and 3", err, len(bobs))
	}

	// 6. A read-only link for someone else: a SAS for this table, valid for
	// 15 minutes. Its holder can read but not write, and never sees the key.
	link, err := readOnlySAS(svc, orders.Name())
	if err != nil {
		return err
	}
	p, err := sas.Parse(link) // to print; its String() hides the signature
	if err != nil {
		return err
	}
	viewer, err := openSAS[Order](link)
	if err != nil {
		return err
	}
	seen, err := viewer.Get(ctx, "bob", "000002", nil)
	if err != nil {
		return err
	}
	_, werr := viewer.Add(ctx, Order{PartitionKey: "bob", RowKey: "000009", Item: "free lunch", Placed: now})
	if !errors.Is(werr, tablekit.ErrForbidden) {
		return fmt.Errorf("write with a read-only SAS: got %v, want tablekit.ErrForbidden", werr)
	}
	fmt.Printf("6. Read-only SAS link (permissions %q, expires %s UTC): it reads bob's %s; its write is refused (403)\n",
		p.Permissions, p.Expiry.Format("15:04"), seen.Item)

	// 7. Delete an entity (with its ETag: only if nobody changed it since).
	if o, err = orders.Get(ctx, "alice", "000003", nil); err != nil {
		return err
	}
	if err := orders.Delete(ctx, "alice", "000003", o.ETag); err != nil {
		return err
	}
	if _, err := orders.Get(ctx, "alice", "000003", nil); !errors.Is(err, tablekit.ErrNotFound) {
		return fmt.Errorf("deleted order still readable: %v", err)
	}
	fmt.Println("7. Deleted alice/000003; reading it now gives tablekit.ErrNotFound")

	// 8. A bulk write: 1,000 orders over 10 customers. batch.Write groups
	// them by PartitionKey into transactions of up to 100, sends several at
	// once, retries, reports progress and sums up.
	var ops []batch.Op[Order]
	for i := range 1000 {
		ops = append(ops, batch.Op[Order]{Entity: Order{ // the zero Kind: an upsert, safe to retry
			PartitionKey: fmt.Sprintf("bulk%02d", i%10), RowKey: fmt.Sprintf("%06d", i),
			Item: "bulk", Quantity: 1, Total: 1, Placed: now,
		}})
	}
	sum, err := batch.Write(ctx, orders, ops, &batch.WriteOptions{Progress: func(p batch.Progress) {
		if p.Final {
			fmt.Printf("   progress: %d/%d orders in %d/%d transactions, %d retries\n", p.Ops, p.OpsTotal, p.Chunks, p.ChunksTotal, p.Retries)
		}
	}})
	if err != nil {
		return fmt.Errorf("bulk write: %d of %d committed: %w", sum.Ops, len(ops), err)
	}
	fmt.Printf("8. Bulk write: %d orders in %d transactions (not 1,000 requests), %d retries, %v\n",
		sum.Ops, sum.Chunks, sum.Retries, sum.Duration.Round(time.Millisecond))
	if sum.Ops != len(ops) || sum.Chunks != 10 {
		return fmt.Errorf("bulk write: %d ops in %d transactions, want %d in 10", sum.Ops, sum.Chunks, len(ops))
	}

	// 9. Read one customer page by page. Each page comes with a token that
	// resumes right after it, even in another process (an API's
	// nextPageToken); here the second page is fetched from the token alone.
	pageQuery := query.New(orders).Where(query.Partition("bulk03")).PageSize(40)
	token, pages, read := "", 0, 0
	for {
		cur, err := pageQuery.Resume(token) // "" starts at the beginning
		if err != nil {
			return err
		}
		var page query.Page[Order]
		for p, err := range cur.Pages(ctx) {
			if err != nil {
				return err
			}
			page = p
			break // one page per "request"
		}
		pages++
		read += len(page.Entities)
		if token = page.Token; token == "" {
			break
		}
		if pages == 1 {
			fmt.Printf("9. Page 1: %d orders; resume token %.24s...\n", len(page.Entities), token)
		}
	}
	fmt.Printf("   %d pages, %d orders of bulk03 read; the last page has no token\n", pages, read)
	if read != 100 || pages != 3 {
		return fmt.Errorf("paged read: %d orders in %d pages, want 100 in 3", read, pages)
	}
	fmt.Println("Done. The table is deleted on exit. Next: the other programs in examples/.")
	return nil
}

// readOnlySAS signs a read-only table SAS with the key the service already
// holds (sas.ServiceCredential). Only the issuer needs the key.
func readOnlySAS(svc *table.Service, tableName string) (string, error) {
	cred, err := sas.ServiceCredential(svc)
	if err != nil {
		return "", err
	}
	protocol := sas.HTTPSOnly
	if isHTTP(svc.Endpoint()) {
		protocol = sas.HTTPSAndHTTP // the emulator serves plain http; never for a real account
	}
	token, err := sas.TableSignature{
		Table:       tableName,
		Permissions: sas.Read,
		Expiry:      time.Now().Add(15 * time.Minute),
		Protocol:    protocol,
	}.Sign(cred)
	if err != nil {
		return "", err
	}
	return sas.TableURL(svc.Endpoint(), tableName, token)
}

// isHTTP: tablekit only connects over http to the emulator (its account
// key is public) or with Options.AllowInsecureHTTP.
func isHTTP(endpoint string) bool { return strings.HasPrefix(endpoint, "http://") }

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
