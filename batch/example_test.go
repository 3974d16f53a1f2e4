package batch_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"strconv"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/batch"
	"github.com/tablekit/tablekit/table"
)

// Line is an order line: the order is the partition, so an order and all
// its lines can change in one transaction.
type Line struct {
	PartitionKey string // order id
	RowKey       string // line number
	SKU          string
	Qty          int32
}

// Reading is a sensor reading: one partition per sensor.
type Reading struct {
	PartitionKey string // sensor
	RowKey       string // sequence number, zero-padded
	Value        float64
}

// openTable connects with the connection string in the environment (make
// test and make demo set it for a local Azurite) and creates a table;
// drop deletes it.
func openTable[T any](ctx context.Context, name string) (t *table.Table[T], drop func()) {
	svc, err := table.NewService(os.Getenv("TABLEKIT_CONNECTION_STRING"), nil)
	if err != nil {
		log.Fatal(err)
	}
	t, err = table.New[T](svc, name+strconv.Itoa(os.Getpid()))
	if err != nil {
		log.Fatal(err)
	}
	if err := svc.CreateTable(ctx, t.Name()); err != nil {
		log.Fatal(err)
	}
	return t, func() { _ = svc.DeleteTable(context.WithoutCancel(ctx), t.Name()) }
}

// Three lines of an order are written together or not at all. A second
// transaction that adds an existing line fails as a whole: its other line
// is not written either.
func Example() {
	ctx := context.Background()
	lines, drop := openTable[Line](ctx, "examplelines")
	defer drop()

	res, err := batch.New(lines).
		Add(Line{PartitionKey: "order-1001", RowKey: "01", SKU: "apple", Qty: 3}).
		Add(Line{PartitionKey: "order-1001", RowKey: "02", SKU: "pear", Qty: 1}).
		Add(Line{PartitionKey: "order-1001", RowKey: "03", SKU: "plum", Qty: 12}).
		Submit(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("committed", len(res), "lines, each with an ETag:", res[0].ETag != "" && res[2].ETag != "")

	_, err = batch.New(lines).
		Add(Line{PartitionKey: "order-1001", RowKey: "04", SKU: "fig", Qty: 2}).
		Add(Line{PartitionKey: "order-1001", RowKey: "02", SKU: "pear", Qty: 5}).
		Submit(ctx)
	ops := []string{"04", "02"}
	var se *tablekit.ServiceError
	if errors.As(err, &se) && se.Index >= 0 {
		fmt.Printf("operation %d (line %s) failed: %d %s; already exists: %v\n",
			se.Index, ops[se.Index], se.StatusCode, se.Code, errors.Is(err, tablekit.ErrAlreadyExists))
	}
	_, err = lines.Get(ctx, "order-1001", "04", nil)
	fmt.Println("line 04 written:", err == nil)
	// Output:
	// committed 3 lines, each with an ETag: true
	// operation 1 (line 02) failed: 409 EntityAlreadyExists; already exists: true
	// line 04 written: false
}

// Rules are checked before any request.
func ExampleTransaction_Validate() {
	ctx := context.Background()
	lines, drop := openTable[Line](ctx, "examplevalidate")
	defer drop()

	tx := batch.New(lines).
		Upsert(Line{PartitionKey: "order-1", RowKey: "01", SKU: "apple"}, table.Replace).
		Upsert(Line{PartitionKey: "order-2", RowKey: "01", SKU: "pear"}, table.Replace)
	err := tx.Validate()
	fmt.Println(err)
	fmt.Println(errors.Is(err, tablekit.ErrInvalid))
	// Output:
	// tablekit: invalid transaction: operation 1: PartitionKey: operations on more than one PartitionKey: operation 0 is on another
	// true
}

// A thousand readings of four sensors go out as 12 transactions: 100, 100
// and 50 operations per sensor, four sensors in parallel.
func ExampleWrite() {
	ctx := context.Background()
	readings, drop := openTable[Reading](ctx, "examplereadings")
	defer drop()

	var ops []batch.Op[Reading]
	for i := range 1000 {
		ops = append(ops, batch.Op[Reading]{Entity: Reading{ // an upsert that replaces
			PartitionKey: fmt.Sprintf("sensor-%d", i%4),
			RowKey:       table.PadUint(uint64(i), 6),
			Value:        float64(i) / 10,
		}})
	}
	sum, err := batch.Write(ctx, readings, ops, &batch.WriteOptions{
		Progress: func(p batch.Progress) {
			if p.Final {
				fmt.Printf("%d/%d operations, %d/%d transactions\n", p.Ops, p.OpsTotal, p.Chunks, p.ChunksTotal)
			}
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(sum.Ops, "operations committed in", sum.Chunks, "transactions")
	// Output:
	// 1000/1000 operations, 12/12 transactions
	// 1000 operations committed in 12 transactions
}

// Operations can come from an iterator (a file, a query, a channel): they
// are read as they are needed.
func ExampleWriteSeq() {
	ctx := context.Background()
	readings, drop := openTable[Reading](ctx, "examplestream")
	defer drop()

	ops := func(yield func(batch.Op[Reading]) bool) {
		for i := range 450 {
			op := batch.Op[Reading]{Entity: Reading{PartitionKey: "sensor-9", RowKey: table.PadUint(uint64(i), 6), Value: 0.5}}
			if !yield(op) {
				return
			}
		}
	}
	sum, err := batch.WriteSeq(ctx, readings, ops, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(sum.Read, "read,", sum.Ops, "committed in", sum.Chunks, "transactions")
	// Output:
	// 450 read, 450 committed in 5 transactions
}

// When a transaction fails, the Summary tells which operations were
// committed. Here one sensor's second transaction adds a reading that
// exists; with ContinueOnError the other sensors are written in full.
func ExampleSummary_State() {
	ctx := context.Background()
	readings, drop := openTable[Reading](ctx, "examplepartial")
	defer drop()
	if _, err := readings.Add(ctx, Reading{PartitionKey: "b", RowKey: "000120"}); err != nil {
		log.Fatal(err)
	}

	var ops []batch.Op[Reading]
	for _, sensor := range []string{"a", "b", "c"} {
		for i := range 150 {
			op := batch.Op[Reading]{Entity: Reading{PartitionKey: sensor, RowKey: table.PadUint(uint64(i), 6), Value: 1}}
			if sensor == "b" && i == 120 {
				op.Kind = batch.Add // fails: the reading exists
			}
			ops = append(ops, op)
		}
	}
	sum, err := batch.Write(ctx, readings, ops, &batch.WriteOptions{ContinueOnError: true})
	fmt.Println("incomplete:", errors.Is(err, tablekit.ErrIncomplete), "- cause exists:", errors.Is(err, tablekit.ErrAlreadyExists))
	for _, c := range sum.Incomplete {
		fmt.Printf("partition %s: %d operations %v (first at input position %d)\n", c.PartitionKey, len(c.Ops), c.State, c.Ops[0])
	}
	var redo []batch.Op[Reading]
	for i, op := range ops {
		if sum.State(i) != batch.Committed {
			redo = append(redo, op)
		}
	}
	fmt.Println(sum.Ops, "committed,", len(redo), "to fix and write again")
	// Output:
	// incomplete: true - cause exists: true
	// partition b: 50 operations Failed (first at input position 250)
	// 400 committed, 50 to fix and write again
}

// Plan counts the transactions a Write of the operations would send, with
// no request: a job's requests, hence its cost, before it runs.
func ExamplePlan() {
	svc, err := table.NewService("UseDevelopmentStorage=true", nil)
	if err != nil {
		log.Fatal(err)
	}
	readings, err := table.New[Reading](svc, "readings")
	if err != nil {
		log.Fatal(err)
	}
	var ops []batch.Op[Reading]
	for i := range 1000 {
		ops = append(ops, batch.Op[Reading]{Entity: Reading{PartitionKey: fmt.Sprintf("sensor-%d", i%4), RowKey: table.PadUint(uint64(i), 6)}})
	}
	sizes, err := batch.Plan(readings, ops)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(sizes), "transactions:", sizes)
	// Output:
	// 12 transactions: [100 100 50 100 100 50 100 100 50 100 100 50]
}
