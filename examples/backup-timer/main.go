// Backup on a timer: a service that backs up its own table while it works.
//
// Problem: nothing backs up Azure Table Storage (Azure Backup covers blobs,
// AzCopy v10 dropped tables), and a nightly full export grows with the
// table, cannot tell which entities were deleted, and is not restorable as
// of a given night.
//
// Pattern: a goroutine of the service runs backup.Run on a ticker into a
// store (a directory here, a blob container through backup/blobstore in
// production) and backup.Keep after it; the first backup is full, the
// next ones store only what changed and the keys deleted, and Keep folds
// the oldest kept into a full backup so the chain stays short.
//
// Guarantee checked: while orders are added, changed and deleted between
// backups, each backup restores exactly the table as it was when taken,
// deleted orders stay deleted, and after Keep the remaining backups still
// restore.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/tablekit/tablekit/backup"
	"github.com/tablekit/tablekit/query"
	"github.com/tablekit/tablekit/table"
)

type Order struct {
	PartitionKey string // customer
	RowKey       string // order number
	Total        float64
	Status       string
}

const (
	rounds = 4                      // backups taken
	every  = 300 * time.Millisecond // the ticker: 24 hours in a real service
	keep   = 2
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("backup-timer: ")
	if err := run(); err != nil {
		log.Fatalf("FAIL: %v", err)
	}
}

func run() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	svc, err := table.NewService(connectionString(), nil)
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
	dir, err := os.MkdirTemp("", "backup-timer")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	st := backup.Dir(dir)

	// The service's backup loop: one backup a tick, then Keep. Here it also
	// waits until the work of the round is done (ready), so that what the
	// table held at each backup is known exactly; a real service's writes
	// go on during a backup, each in that backup or the next.
	ready := make(chan struct{})
	taken := make(chan backup.Info)
	loopErr := make(chan error, 1)
	go func() {
		tick := time.NewTicker(every)
		defer tick.Stop()
		for range rounds {
			<-tick.C
			<-ready
			in, err := backup.Run(ctx, svc, orders.Name(), st, nil)
			if err == nil {
				_, err = backup.Keep(ctx, st, keep)
			}
			if err != nil {
				loopErr <- err
				return
			}
			taken <- in
		}
		close(taken)
	}()

	// The service's own work, and what the table held at each backup.
	states := map[string]map[string]Order{}
	next := 0
	for round := 0; ; round++ {
		for i := range 20 { // new orders
			o := Order{PartitionKey: fmt.Sprintf("customer%d", i%3), RowKey: fmt.Sprintf("%05d", next), Total: float64(next) * 1.25, Status: "new"}
			next++
			if _, err := orders.Upsert(ctx, o, table.Replace); err != nil {
				return err
			}
		}
		if round > 0 { // ship some, cancel some
			if _, err := orders.Upsert(ctx, Order{PartitionKey: "customer0", RowKey: fmt.Sprintf("%05d", (round-1)*20), Total: 1, Status: "shipped"}, table.Merge); err != nil {
				return err
			}
			if err := orders.Delete(ctx, "customer1", fmt.Sprintf("%05d", (round-1)*20+1), table.AnyETag); err != nil {
				return err
			}
		}
		want, err := read(ctx, orders)
		if err != nil {
			return err
		}
		if round < rounds {
			select {
			case ready <- struct{}{}:
			case err := <-loopErr:
				return err
			}
		}
		select {
		case in, ok := <-taken:
			if !ok {
				return check(ctx, svc, st, states)
			}
			states[in.ID] = want
			kind := "incremental"
			if in.Full {
				kind = "full"
			}
			fmt.Printf("backup %s: %s, %d orders stored, %d deleted, %d in the table\n", in.ID, kind, in.Written, in.Deleted, in.Entities)
		case err := <-loopErr:
			return err
		}
	}
}

// check restores every backup that Keep left and compares it with the
// table as it was when the backup was taken.
func check(ctx context.Context, svc *table.Service, st backup.Store, states map[string]map[string]Order) error {
	infos, err := backup.List(ctx, st)
	if err != nil {
		return err
	}
	if len(infos) != keep {
		return fmt.Errorf("%d backups kept, want %d", len(infos), keep)
	}
	for _, in := range infos {
		id := in.ID
		if in.FoldOf != "" {
			id = in.FoldOf // a fold restores as the backup it folded
		}
		name := uniqueName("restored")
		if _, err := backup.Restore(ctx, svc, name, st, &backup.RestoreOptions{ID: in.ID}); err != nil {
			return err
		}
		restored, err := table.New[Order](svc, name)
		if err != nil {
			return err
		}
		got, err := read(ctx, restored)
		_ = svc.DeleteTable(context.WithoutCancel(ctx), name)
		if err != nil {
			return err
		}
		want := states[id]
		if len(got) != len(want) {
			return fmt.Errorf("backup %s restored %d orders, want %d", in.ID, len(got), len(want))
		}
		for k, o := range want {
			if got[k] != o {
				return fmt.Errorf("backup %s: order %s restored as %+v, want %+v", in.ID, k, got[k], o)
			}
		}
		fmt.Printf("restored %s: %d orders, as the table was\n", in.ID, len(got))
	}
	fmt.Printf("OK: every kept backup restores the table as it was when taken\n")
	return nil
}

// read returns the table's orders by key.
func read(ctx context.Context, t *table.Table[Order]) (map[string]Order, error) {
	all := map[string]Order{}
	for o, err := range query.New(t).All(ctx) {
		if err != nil {
			return nil, err
		}
		all[o.PartitionKey+"/"+o.RowKey] = o
	}
	return all, nil
}

// uniqueName makes a table name no other run uses.
func uniqueName(prefix string) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// connectionString returns TABLEKIT_CONNECTION_STRING, or the local Azurite
// development account when it is not set.
func connectionString() string {
	if cs := os.Getenv("TABLEKIT_CONNECTION_STRING"); cs != "" {
		return cs
	}
	return "UseDevelopmentStorage=true"
}
