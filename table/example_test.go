package table_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/table"
)

// Order is an entity: the keys, typed properties, and the ETag and
// Timestamp of what was read (from table.Meta).
type Order struct {
	PartitionKey string // customer
	RowKey       string // order number, zero-padded so it sorts
	Total        float64
	Items        int32
	Placed       time.Time
	table.Meta
}

func Example() {
	ctx := context.Background()
	svc, err := table.NewService(os.Getenv("TABLEKIT_CONNECTION_STRING"), nil)
	if err != nil {
		log.Fatal(err)
	}
	orders, err := table.New[Order](svc, "exampleorders")
	if err != nil {
		log.Fatal(err)
	}
	if err := svc.CreateTable(ctx, orders.Name()); err != nil {
		log.Fatal(err)
	}
	defer svc.DeleteTable(ctx, orders.Name())

	o := Order{PartitionKey: "alice", RowKey: table.PadUint(42, 8), Total: 10, Items: 1,
		Placed: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)}
	if _, err := orders.Add(ctx, o); err != nil {
		log.Fatal(err)
	}

	got, err := orders.Get(ctx, "alice", "00000042", nil)
	if err != nil {
		log.Fatal(err)
	}
	got.Total += 5
	// Update only if nobody changed the order since we read it.
	if _, err := orders.Update(ctx, got, table.Replace, got.ETag); err != nil {
		log.Fatal(err)
	}
	// The ETag we read is stale now: a second writer with it loses.
	_, err = orders.Update(ctx, got, table.Replace, got.ETag)
	fmt.Println("stale write refused:", errors.Is(err, tablekit.ErrPreconditionFailed))

	_, err = orders.Get(ctx, "alice", "missing", nil)
	fmt.Println("missing:", errors.Is(err, tablekit.ErrNotFound))

	final, _ := orders.Get(ctx, "alice", "00000042", nil)
	fmt.Println(final.RowKey, final.Total, final.Placed.Format(time.RFC3339))
	// Output:
	// stale write refused: true
	// missing: true
	// 00000042 15 2025-03-01T12:00:00Z
}

// Existing aztables code keeps its calls and gains the tuned transport, the
// retry policy and inserts without echo by swapping in the options.
func ExampleClientOptions() {
	ctx := context.Background()
	svc, err := aztables.NewServiceClientFromConnectionString(os.Getenv("TABLEKIT_CONNECTION_STRING"),
		table.ClientOptions(&table.Options{PoolSize: 32}))
	if err != nil {
		log.Fatal(err)
	}
	client := svc.NewClient("exampleclientoptions")
	if _, err := client.CreateTable(ctx, nil); err != nil {
		log.Fatal(err)
	}
	defer client.Delete(ctx, nil)

	added, err := client.AddEntity(ctx, []byte(`{"PartitionKey":"alice","RowKey":"00000042","Total":10.5}`), nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("echoed by the insert: %s\n", added.Value) // null: the entity was not sent back
	got, err := client.GetEntity(ctx, "alice", "00000042", nil)
	if err != nil {
		log.Fatal(err)
	}
	var e struct{ Total float64 }
	if err := json.Unmarshal(got.Value, &e); err != nil {
		log.Fatal(err)
	}
	fmt.Println("read back:", e.Total)
	// Output:
	// echoed by the insert: null
	// read back: 10.5
}

func ExampleReverseTicks() {
	newer := table.ReverseTicks(time.Date(2025, 1, 2, 0, 0, 0, 0, time.UTC))
	older := table.ReverseTicks(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	fmt.Println(newer, newer < older)
	// Output: 2516665247999999999 true
}

func ExampleShard() {
	// Spread an append-only partition key (a date) over 8 partitions.
	pk := table.Shard("order-1234", 8) + "_2025-03-01"
	fmt.Println(pk, table.ShardPrefixes(8))
	// Output: 2_2025-03-01 [0 1 2 3 4 5 6 7]
}

// When Add's reply is lost and its retry finds the entity, the error is
// tablekit.ErrMaybeCommitted: Verify reads the entity and says whether it
// is the one Add sent.
func ExampleTable_Verify() {
	ctx := context.Background()
	svc, err := table.NewService(os.Getenv("TABLEKIT_CONNECTION_STRING"), nil)
	if err != nil {
		log.Fatal(err)
	}
	orders, err := table.New[Order](svc, "exampleverify")
	if err != nil {
		log.Fatal(err)
	}
	if err := svc.CreateTable(ctx, orders.Name()); err != nil {
		log.Fatal(err)
	}
	defer svc.DeleteTable(ctx, orders.Name())
	o := Order{PartitionKey: "bob", RowKey: "1", Total: 3}
	_, err = orders.Add(ctx, o)
	if errors.Is(err, tablekit.ErrMaybeCommitted) {
		var same bool
		same, _, err = orders.Verify(ctx, o, table.Replace)
		if same {
			err = nil // the lost attempt stored it
		}
	}
	fmt.Println(err)
	same, _, err := orders.Verify(ctx, Order{PartitionKey: "bob", RowKey: "1", Total: 4}, table.Replace)
	fmt.Println(same, err)
	// Output:
	// <nil>
	// false <nil>
}

// A bulk load that shares its account with production traffic keeps at
// most 5,000 entities a second, and less while the account throttles it.
func ExampleRate() {
	svc, err := table.NewService(os.Getenv("TABLEKIT_CONNECTION_STRING"), &table.Options{
		Rate: &table.Rate{
			EntitiesPerSecond: 5000,
			OnChange: func(ev table.RateEvent) {
				log.Printf("rate %.0f entities/s (%d throttled answers)", ev.EntitiesPerSecond, ev.ThrottledAnswers)
			},
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	_ = svc // open tables with table.New; batch.Write and queries on them keep the rate
}
