package table_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/table"
)

// Tables of the account are listed by name prefix, paged by the service.
func ExampleService_Tables() {
	ctx := context.Background()
	svc, err := table.NewService(os.Getenv("TABLEKIT_CONNECTION_STRING"), nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, name := range []string{"exlistaudit", "exlistorders", "exlistusers"} {
		if err := svc.CreateTable(ctx, name); err != nil {
			log.Fatal(err)
		}
		defer svc.DeleteTable(ctx, name)
	}
	for name, err := range svc.Tables(ctx, &table.ListTablesOptions{Prefix: "exlisto"}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(name)
	}
	// Output:
	// exlistorders
}

// Point gets and queries fall back to the account's read-only secondary
// region (RA-GRS) when the primary fails with a retryable error; writes
// always go to the primary. WithReadLocations counts which one answered:
// the secondary may lag (Service.Stats reports its last sync time).
//
// The emulator serves an account's secondary beside its primary, with the
// same data, and never fails: here the primary answers the first read, and
// a service in SecondaryOnly mode reads from the secondary.
func ExampleOptions_location() {
	ctx := context.Background()
	svc, err := table.NewService(os.Getenv("TABLEKIT_CONNECTION_STRING"),
		&table.Options{Location: table.PrimaryThenSecondary})
	if err != nil {
		log.Fatal(err)
	}
	orders, err := table.New[Order](svc, "examplelocation")
	if err != nil {
		log.Fatal(err)
	}
	if err := svc.CreateTable(ctx, orders.Name()); err != nil {
		log.Fatal(err)
	}
	defer svc.DeleteTable(ctx, orders.Name())
	if _, err := orders.Add(ctx, Order{PartitionKey: "alice", RowKey: "00000042", Total: 10}); err != nil {
		log.Fatal(err)
	}

	var from table.ReadLocations
	o, err := orders.Get(table.WithReadLocations(ctx, &from), "alice", "00000042", nil)
	if err != nil {
		log.Fatal(err)
	}
	if from.Secondary() > 0 {
		log.Printf("order %s read from the secondary: it may be behind", o.RowKey)
	}
	fmt.Println("primary:", from.Primary(), "secondary:", from.Secondary())

	reports, err := table.NewService(os.Getenv("TABLEKIT_CONNECTION_STRING"),
		&table.Options{Location: table.SecondaryOnly})
	if err != nil {
		log.Fatal(err)
	}
	stale, err := table.New[Order](reports, orders.Name())
	if err != nil {
		log.Fatal(err)
	}
	var fromReports table.ReadLocations
	o, err = stale.Get(table.WithReadLocations(ctx, &fromReports), "alice", "00000042", nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("primary:", fromReports.Primary(), "secondary:", fromReports.Secondary(), "total:", o.Total)
	// Output:
	// primary: 1 secondary: 0
	// primary: 0 secondary: 1 total: 10
}

// A table.Entity holds any entity: rows of several types in one table,
// each decoded by its discriminator into its own Go type.
func ExampleEntity() {
	ctx := context.Background()
	svc, err := table.NewService(os.Getenv("TABLEKIT_CONNECTION_STRING"), nil)
	if err != nil {
		log.Fatal(err)
	}
	rows, err := table.New[table.Entity](svc, "exampleentities")
	if err != nil {
		log.Fatal(err)
	}
	if err := svc.CreateTable(ctx, rows.Name()); err != nil {
		log.Fatal(err)
	}
	defer svc.DeleteTable(ctx, rows.Name())

	e := table.NewEntity("alice", "00000042")
	e.Properties["Kind"] = "order"
	e.Properties["Total"] = 10.0 // float64: Edm.Double, also when whole
	e.Properties["Items"] = int32(1)
	if _, err := rows.Add(ctx, e); err != nil {
		log.Fatal(err)
	}

	got, err := rows.Get(ctx, "alice", "00000042", nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%T %T\n", got.Properties["Total"], got.Properties["Items"])
	if got.Properties["Kind"] == "order" {
		o, err := testenv.Convert[Order](got)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(o.RowKey, o.Total, o.Items)
	}
	// Output:
	// float64 int32
	// 00000042 10 1
}
