package backup_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"strconv"

	"github.com/tablekit/tablekit/backup"
	"github.com/tablekit/tablekit/batch"
	"github.com/tablekit/tablekit/table"
)

// A full backup, a change, an incremental backup, and a restore of the
// first into a new table.
func Example() {
	ctx := context.Background()
	svc, err := table.NewService(os.Getenv("TABLEKIT_CONNECTION_STRING"), nil)
	if err != nil {
		log.Fatal(err)
	}
	suffix := strconv.Itoa(os.Getpid())
	orders, err := table.New[table.Entity](svc, "exampleorders"+suffix)
	if err != nil {
		log.Fatal(err)
	}
	if err := svc.CreateTable(ctx, orders.Name()); err != nil {
		log.Fatal(err)
	}
	defer svc.DeleteTable(context.WithoutCancel(ctx), orders.Name())
	var ops []batch.Op[table.Entity]
	for i := range 10 {
		e := table.NewEntity("alice", fmt.Sprintf("order-%02d", i))
		e.Properties = map[string]any{"Total": float64(i) * 1.5}
		ops = append(ops, batch.Op[table.Entity]{Entity: e})
	}
	if _, err := batch.Write(ctx, orders, ops, nil); err != nil {
		log.Fatal(err)
	}

	dir, err := os.MkdirTemp("", "backups")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	st := backup.Dir(dir)

	first, err := backup.Run(ctx, svc, orders.Name(), st, nil)
	if err != nil {
		log.Fatal(err)
	}
	if err := orders.Delete(ctx, "alice", "order-03", table.AnyETag); err != nil {
		log.Fatal(err)
	}
	second, err := backup.Run(ctx, svc, orders.Name(), st, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("full: %v, %d entities\n", first.Full, first.Entities)
	fmt.Printf("incremental: %d written, %d deleted, %d entities\n", second.Written, second.Deleted, second.Entities)

	copyName := "exampleorderscopy" + suffix
	defer svc.DeleteTable(context.WithoutCancel(ctx), copyName)
	res, err := backup.Restore(ctx, svc, copyName, st, &backup.RestoreOptions{ID: first.ID})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("restored:", res.Written)
	// Output:
	// full: true, 10 entities
	// incremental: 0 written, 1 deleted, 9 entities
	// restored: 10
}
