package query_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/query"
	"github.com/tablekit/tablekit/table"
)

// Order is the entity of the examples: one partition per customer, row keys
// that sort by order number.
type Order struct {
	PartitionKey string // customer
	RowKey       string // order number, zero-padded
	Total        float64
	Items        int32
	Placed       time.Time
	Note         string
}

// orders opens (and fills) a table of the emulator that `make test` starts:
// TABLEKIT_CONNECTION_STRING names it, as it would name your account.
// Customers are "customer00", "customer01", ...; with sharded keys they get
// the prefix of table.Shard, as in "1-customer04".
func orders(ctx context.Context, name string, customers, perCustomer int, sharded bool) (t *table.Table[Order], drop func()) {
	svc, err := table.NewService(os.Getenv("TABLEKIT_CONNECTION_STRING"), nil)
	if err != nil {
		log.Fatal(err)
	}
	t, err = table.New[Order](svc, name)
	if err != nil {
		log.Fatal(err)
	}
	drop = func() { _ = svc.DeleteTable(context.WithoutCancel(ctx), t.Name()) }
	if err := svc.CreateTable(ctx, t.Name()); err != nil {
		log.Fatal(err)
	}
	for c := range customers {
		for n := range perCustomer {
			customer := fmt.Sprintf("customer%02d", c)
			if sharded {
				customer = table.Shard(customer, 4) + "-" + customer
			}
			o := Order{
				PartitionKey: customer,
				RowKey:       table.PadUint(uint64(n), 6),
				Total:        float64(10 * (n + 1)),
				Items:        int32(n%3 + 1),
				Placed:       time.Date(2025, 1, 1+n, 12, 0, 0, 0, time.UTC),
				Note:         "O'Brien asked: ' or 1 eq 1 or '",
			}
			if _, err := t.Upsert(ctx, o, table.Replace); err != nil {
				log.Fatal(err)
			}
		}
	}
	return t, drop
}

// Filters are built from typed parts; every value is written as the literal
// of its type, so no value can change the filter's shape.
func ExampleFilter() {
	f := query.And(
		query.Partition("customer42"),
		query.RowKey.HasPrefix("2025-"),
		query.Or(
			query.Property("Total").Ge(query.Double(100)),
			query.Property("Items").Gt(query.Int32(5)),
		),
		query.Property("Note").Ne(query.String("' or 1 eq 1 or '")),
	)
	text, err := f.Build()
	fmt.Println(text, err)
	fmt.Println(f.Scope())

	// An invalid part keeps its error until the filter is used.
	_, err = query.Property("Total Price").Eq(query.Double(1)).Build()
	fmt.Println(errors.Is(err, tablekit.ErrInvalid))
	// Output:
	// PartitionKey eq 'customer42' and RowKey ge '2025-' and RowKey lt '2025.' and (Total ge 100.0 or Items gt 5) and Note ne ''' or 1 eq 1 or ''' <nil>
	// partition
	// true
}

// Each literal constructor writes the form the service requires for its
// EDM type.
func ExampleValue() {
	g, _ := table.ParseGUID("0f8fad5b-d9cb-469f-a165-70867728950e")
	for _, v := range []query.Value{
		query.String("O'Brien"),
		query.Bool(true),
		query.Int32(42),
		query.Int64(42),
		query.Double(1),
		query.DateTime(time.Date(2024, 1, 2, 3, 4, 5, 123456700, time.FixedZone("CET", 3600))),
		query.GUID(g),
		query.Binary([]byte{0x0a, 0xff}),
	} {
		fmt.Println(v)
	}
	// Output:
	// 'O''Brien'
	// true
	// 42
	// 42L
	// 1.0
	// datetime'2024-01-02T02:04:05.1234567Z'
	// guid'0f8fad5b-d9cb-469f-a165-70867728950e'
	// X'0aff'
}

// Scope tells the cost of a filter before it runs.
func ExampleFilter_Scope() {
	for _, f := range []query.Filter{
		query.Point("customer42", "000007"),
		query.And(query.Partition("customer42"), query.Property("Total").Gt(query.Double(100))),
		query.PartitionKey.HasPrefix("3-"),
		query.Property("Total").Gt(query.Double(100)),
		query.Or(query.Partition("a"), query.Partition("b")),
	} {
		fmt.Printf("%-10s single partition: %-5v %s\n", f.Scope(), f.Scope().SinglePartition(), f)
	}
	// Output:
	// point      single partition: true  PartitionKey eq 'customer42' and RowKey eq '000007'
	// partition  single partition: true  PartitionKey eq 'customer42' and Total gt 100.0
	// range      single partition: false PartitionKey ge '3-' and PartitionKey lt '3.'
	// table scan single partition: false Total gt 100.0
	// table scan single partition: false PartitionKey eq 'a' or PartitionKey eq 'b'
}

// A partition query with projection: only Total is sent back, other fields
// stay zero.
func ExampleQuery_All() {
	ctx := context.Background()
	t, drop := orders(ctx, "exqueryall", 2, 5, false)
	defer drop()

	q := query.New(t).
		Where(query.And(
			query.Partition("customer00"),
			query.Property("Total").Ge(query.Double(30)),
		)).
		Select("Total")
	for o, err := range q.All(ctx) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(o.RowKey, o.Total, o.Items, o.Note == "")
	}
	// Output:
	// 000002 30 0 true
	// 000003 40 0 true
	// 000004 50 0 true
}

// Resumable paging as a web API does it: each request returns at most Limit
// entities and a token for the next request, which may come to another
// process. The token is bound to the query: another filter refuses it.
func ExampleQuery_Resume() {
	ctx := context.Background()
	t, drop := orders(ctx, "exqueryresume", 1, 25, false)
	defer drop()

	q := query.New(t).Where(query.Partition("customer00")).Limit(10)
	token := "" // from the client's request; "" for the first page
	for {
		c, err := q.Resume(token)
		if err != nil {
			log.Fatal(err) // tablekit.ErrInvalid: answer 400
		}
		page, err := query.Collect(c.All(ctx))
		if err != nil {
			log.Fatal(err)
		}
		token = c.Token() // "" after the last page
		fmt.Printf("%d orders, %s..%s, more: %v\n", len(page), page[0].RowKey, page[len(page)-1].RowKey, token != "")
		if token == "" {
			break
		}
		if _, err := query.New(t).Where(query.Partition("another")).Resume(token); errors.Is(err, tablekit.ErrInvalid) {
			fmt.Println("  (refused by another query)")
		}
	}
	// Output:
	// 10 orders, 000000..000009, more: true
	//   (refused by another query)
	// 10 orders, 000010..000019, more: true
	//   (refused by another query)
	// 5 orders, 000020..000024, more: false
}

// A long job saves its position as it goes; after a stop (here: a break
// in the middle of a page) it resumes exactly after the last entity it
// processed.
func ExampleCursor_Token() {
	ctx := context.Background()
	t, drop := orders(ctx, "excursortoken", 1, 12, false)
	defer drop()

	q := query.New(t).PageSize(5)
	c, err := q.Resume("")
	if err != nil {
		log.Fatal(err)
	}
	var checkpoint string
	for o, err := range c.All(ctx) {
		if err != nil {
			log.Fatal(err)
		}
		checkpoint = c.Token() // after o
		if o.RowKey == "000006" {
			break // the job is stopped
		}
	}
	c, err = q.Resume(checkpoint) // later, maybe in another process
	if err != nil {
		log.Fatal(err)
	}
	rest, err := query.Collect(c.All(ctx))
	fmt.Println(len(rest), rest[0].RowKey, err)
	// Output:
	// 5 000007 <nil>
}

// Pages yields each response with its token; a checkpoint per page never
// loses progress.
func ExampleCursor_Pages() {
	ctx := context.Background()
	t, drop := orders(ctx, "excursorpages", 1, 12, false)
	defer drop()

	for p, err := range query.New(t).PageSize(5).Pages(ctx) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(len(p.Entities), p.Token != "")
	}
	// Output:
	// 5 true
	// 5 true
	// 2 false
}

// A scan of a sharded table as one segment per shard, 4 requests at a
// time, merged back into key order.
func ExampleQuery_Parallel() {
	ctx := context.Background()
	t, drop := orders(ctx, "exqueryparallel", 8, 3, true) // keys like "1-customer04"
	defer drop()

	c, err := query.New(t).
		Where(query.Property("Items").Ge(query.Int32(2))).
		Parallel(query.ShardSegments(4), &query.ParallelOptions{Parallelism: 4, Ordered: true})
	if err != nil {
		log.Fatal(err)
	}
	for o, err := range c.All(ctx) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(o.PartitionKey, o.RowKey, o.Items)
	}
	fmt.Printf("token after the end: %q\n", c.Token())
	// Output:
	// 0-customer03 000001 2
	// 0-customer03 000002 3
	// 0-customer07 000001 2
	// 0-customer07 000002 3
	// 1-customer00 000001 2
	// 1-customer00 000002 3
	// 1-customer04 000001 2
	// 1-customer04 000002 3
	// 2-customer01 000001 2
	// 2-customer01 000002 3
	// 2-customer05 000001 2
	// 2-customer05 000002 3
	// 3-customer02 000001 2
	// 3-customer02 000002 3
	// 3-customer06 000001 2
	// 3-customer06 000002 3
	// token after the end: ""
}
