// Log tail: read the N most recent entities of a partition with one query.
//
// Problem: the service returns a partition in ascending RowKey order and
// $top takes the first N, so with time-ordered row keys "the last 10 expense
// reports" would mean reading the whole partition to keep its end.
//
// Pattern: make the RowKey sort newest first. table.ReverseTicks(t) writes
// DateTime.MaxValue.Ticks - ticks(t) as 19 zero-padded digits (the same key
// .NET code makes), so the newest entity is the first of the partition and
// the newest N are one partition query with a limit of N.
//
// (Cosmos DB's Table API does not return entities sorted by RowKey; this
// pattern is for Azure Table Storage.)
//
// Guarantee checked: written in random order, the query returns exactly the
// N newest entities, newest first, in one request, and each RowKey decodes
// back to its time.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log"
	mrand "math/rand/v2"
	"net/http"
	"os"
	"sync/atomic"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"

	"github.com/tablekit/tablekit/query"
	"github.com/tablekit/tablekit/table"
)

type Expense struct {
	PartitionKey string    // employee
	RowKey       string    // table.ReverseTicks(Submitted)
	Submitted    time.Time // also stored as a property, for filters and display
	Amount       float64
}

const (
	reports = 50
	tail    = 10
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("log-tail: ")
	if err := run(); err != nil {
		log.Fatalf("FAIL: %v", err)
	}
}

func run() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// Count HTTP requests, to check that the tail costs one. A per-retry
	// policy sees every attempt.
	var requests requestCounter
	svc, err := table.NewService(connectionString(), &table.Options{
		Azcore: azcore.ClientOptions{PerRetryPolicies: []policy.Policy{&requests}},
	})
	if err != nil {
		return err
	}
	expenses, err := table.New[Expense](svc, uniqueName("expenses"))
	if err != nil {
		return err
	}
	if err := svc.CreateTable(ctx, expenses.Name()); err != nil {
		return err
	}
	defer svc.DeleteTable(context.WithoutCancel(ctx), expenses.Name())

	// One report a day for 50 days, inserted in random order.
	start := time.Date(2025, 1, 1, 9, 30, 0, 0, time.UTC)
	for _, i := range mrand.Perm(reports) {
		at := start.AddDate(0, 0, i)
		e := Expense{PartitionKey: "emp000123", RowKey: table.ReverseTicks(at), Submitted: at, Amount: float64(10 + i)}
		if _, err := expenses.Add(ctx, e); err != nil {
			return err
		}
	}
	fmt.Printf("table %s: %d expense reports of emp000123, inserted in random order\n", expenses.Name(), reports)

	// The newest N: a partition query whose first and only request asks
	// for N entities ($top=N); Limit stops there.
	before := requests.Load()
	latest, err := query.Collect(query.New(expenses).
		Where(query.Partition("emp000123")).
		Limit(tail).
		All(ctx))
	if err != nil {
		return err
	}
	sent := requests.Load() - before
	fmt.Printf("latest %d (%d request):\n", tail, sent)
	if sent != 1 {
		return fmt.Errorf("the tail took %d requests, want 1", sent)
	}
	for i, e := range latest {
		at, err := table.TimeFromReverseTicks(e.RowKey)
		if err != nil {
			return err
		}
		fmt.Printf("  %s  %s  %6.2f\n", e.RowKey, at.Format("2006-01-02 15:04"), e.Amount)
		want := start.AddDate(0, 0, reports-1-i) // newest first
		if !at.Equal(want) || !e.Submitted.Equal(want) {
			return fmt.Errorf("entry %d is from %s, want %s", i, at, want)
		}
	}
	if len(latest) != tail {
		return fmt.Errorf("got %d entries, want %d", len(latest), tail)
	}
	fmt.Printf("OK: the %d newest reports, newest first, from one partition query\n", tail)
	return nil
}

// requestCounter is an azcore pipeline policy that counts requests.
type requestCounter struct{ atomic.Int64 }

func (c *requestCounter) Do(req *policy.Request) (*http.Response, error) {
	c.Add(1)
	return req.Next()
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
