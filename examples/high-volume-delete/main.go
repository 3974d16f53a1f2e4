// High-volume delete: keep one table per period and drop old periods whole.
//
// Problem: deleting old data (say login records older than 60 days) entity by
// entity means a scan to find them and one delete per entity (or per batch of
// 100 in one partition): hundreds of thousands of billable operations that
// compete with live traffic.
//
// Pattern: write each day's records to a table of their own, named after the
// day (logins<run>20250301). Retention is then "delete the tables older than
// the cutoff": one operation per day, whatever the day holds. Inside a day's
// table the PartitionKey is the user, so inserts are spread, not hot.
//
// Use a fresh name for every table: the service needs 40 seconds or more
// before a deleted table's name can be created again.
//
// Guarantee checked: after retention runs, the old days' tables are gone
// (their entities unreadable) and the kept day's entities are all still there.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log"
	"os"
	"slices"
	"sort"
	"time"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/query"
	"github.com/tablekit/tablekit/table"
)

type Login struct {
	PartitionKey string // user
	RowKey       string // time of the login, zero-padded ticks
	IP           string
	At           time.Time
}

const (
	days         = 3  // days of data written
	keepDays     = 1  // retention: today only
	loginsPerDay = 40 // small: the point is the number of delete operations
	usersPerDay  = 8
	dayLayout    = "20060102"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("high-volume-delete: ")
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
	// Every table of this run starts with prefix; the day follows it.
	prefix := uniqueName("logins")
	tableFor := func(day time.Time) string { return prefix + day.UTC().Format(dayLayout) }
	defer dropOlderThan(context.WithoutCancel(ctx), svc, prefix, time.Now().AddDate(1, 0, 0)) // cleanup: all of them

	today := time.Now().UTC().Truncate(24 * time.Hour)
	for d := days - 1; d >= 0; d-- {
		day := today.AddDate(0, 0, -d)
		logins, err := table.New[Login](svc, tableFor(day))
		if err != nil {
			return err
		}
		if err := svc.CreateTable(ctx, logins.Name()); err != nil {
			return err
		}
		for i := range loginsPerDay {
			at := day.Add(time.Duration(i) * time.Minute)
			l := Login{PartitionKey: fmt.Sprintf("user%02d", i%usersPerDay), RowKey: table.PadUint(uint64(table.Ticks(at)), 19),
				IP: fmt.Sprintf("10.0.0.%d", i), At: at}
			if _, err := logins.Add(ctx, l); err != nil {
				return err
			}
		}
		fmt.Printf("wrote %d logins to %s\n", loginsPerDay, logins.Name())
	}

	// Retention: drop every day before the cutoff, one operation per day.
	cutoff := today.AddDate(0, 0, -(keepDays - 1))
	dropped, err := dropOlderThan(ctx, svc, prefix, cutoff)
	if err != nil {
		return err
	}
	fmt.Printf("retention (keep %d day): dropped %d tables = %d delete operations for %d entities\n",
		keepDays, len(dropped), len(dropped), len(dropped)*loginsPerDay)

	// Check: only the kept day's table is left, and all of its entities are.
	left, err := listTables(ctx, svc, prefix)
	if err != nil {
		return err
	}
	if want := []string{tableFor(today)}; !slices.Equal(left, want) {
		return fmt.Errorf("tables left: %v, want %v", left, want)
	}
	for _, name := range dropped {
		old, _ := table.New[Login](svc, name)
		if _, err := old.Get(ctx, "user00", "x", nil); !errors.Is(err, tablekit.ErrTableNotFound) {
			return fmt.Errorf("dropped table %s still answers: %v", name, err)
		}
	}
	kept, _ := table.New[Login](svc, tableFor(today))
	n, err := count(ctx, kept)
	if err != nil {
		return err
	}
	fmt.Printf("left: %v with %d logins\n", left, n)
	if n != loginsPerDay {
		return fmt.Errorf("kept table holds %d logins, want %d", n, loginsPerDay)
	}
	fmt.Println("OK: old days gone in one operation each, today's data intact")
	return nil
}

// dropOlderThan deletes the tables named prefix+day with a day before cutoff
// and returns their names. Table names sort by day because the day is
// written as yyyymmdd.
func dropOlderThan(ctx context.Context, svc *table.Service, prefix string, cutoff time.Time) ([]string, error) {
	names, err := listTables(ctx, svc, prefix)
	if err != nil {
		return nil, err
	}
	limit := prefix + cutoff.UTC().Format(dayLayout)
	var dropped []string
	for _, name := range names {
		if name >= limit {
			break
		}
		if err := svc.DeleteTable(ctx, name); err != nil {
			return dropped, err
		}
		dropped = append(dropped, name)
	}
	return dropped, nil
}

// listTables lists the tables whose name starts with prefix, in order. The
// prefix is sent as a name range, so the service does not list other tables.
func listTables(ctx context.Context, svc *table.Service, prefix string) ([]string, error) {
	var names []string
	for name, err := range svc.Tables(ctx, &table.ListTablesOptions{Prefix: prefix}) {
		if err != nil {
			return nil, err
		}
		names = append(names, name)
	}
	sort.Strings(names)
	return names, nil
}

// count reads every key of the table: a table scan, fine for one small day.
func count(ctx context.Context, t *table.Table[Login]) (int, error) {
	n := 0
	for _, err := range query.New(t).Select().All(ctx) { // keys only
		if err != nil {
			return 0, err
		}
		n++
	}
	return n, nil
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
