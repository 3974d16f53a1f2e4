// Bulk load and resumable scan: write many entities fast, then read them all
// back in a way that survives being stopped.
//
// Problem: inserting entities one request at a time is slow (each is a round
// trip), and a long export that dies halfway starts over from the beginning.
//
// Bulk load: batch.Write groups operations by PartitionKey into entity group
// transactions of up to 100 operations (and under 4 MiB), sends several at
// once, retries failed ones, and reports progress. Its default operation is
// an upsert, so a transaction retried after a lost response cannot fail
// because its first attempt committed. Atomicity is per transaction only: if
// Write fails, the Summary says which operations committed.
//
// Resumable scan: a query's continuation token is an opaque string. Saving it
// to a file after every page (a checkpoint) lets a later run, in another
// process, continue exactly where the last one stopped. This program runs
// the scan twice: the first run stops after a few pages, the second resumes
// from the file.
//
// Guarantees checked: every entity is committed; the two scan runs together
// return every entity exactly once, the second starting where the first
// stopped.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tablekit/tablekit/batch"
	"github.com/tablekit/tablekit/query"
	"github.com/tablekit/tablekit/table"
)

type Reading struct {
	PartitionKey string // sensor
	RowKey       string // sequence number, zero-padded
	Celsius      float64
	At           time.Time
}

const (
	sensors    = 40
	perSensor  = 200 // 8,000 readings: 2 transactions per sensor
	pageSize   = 500
	firstPages = 7 // the first scan run stops after this many pages
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("bulk-load: ")
	if err := run(); err != nil {
		log.Fatalf("FAIL: %v", err)
	}
}

func run() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	svc, err := table.NewService(connectionString(), nil)
	if err != nil {
		return err
	}
	readings, err := table.New[Reading](svc, uniqueName("readings"))
	if err != nil {
		return err
	}
	if err := svc.CreateTable(ctx, readings.Name()); err != nil {
		return err
	}
	defer svc.DeleteTable(context.WithoutCancel(ctx), readings.Name())

	// ---- Bulk load ----
	start := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	var ops []batch.Op[Reading]
	for s := range sensors {
		for i := range perSensor {
			ops = append(ops, batch.Op[Reading]{Entity: Reading{ // the zero Kind: upsert
				PartitionKey: fmt.Sprintf("sensor%03d", s),
				RowKey:       table.PadUint(uint64(i), 8),
				Celsius:      20 + float64((s*perSensor+i)%100)/10,
				At:           start.Add(time.Duration(i) * time.Minute),
			}})
		}
	}
	fmt.Printf("loading %d readings of %d sensors into %s\n", len(ops), sensors, readings.Name())
	sum, err := batch.Write(ctx, readings, ops, &batch.WriteOptions{Progress: progressBar()})
	if err != nil {
		return fmt.Errorf("bulk load: %d of %d committed: %w", sum.Ops, len(ops), err)
	}
	fmt.Printf("loaded %d entities in %d transactions, %d retries, %v (%.0f entities/s)\n",
		sum.Ops, sum.Chunks, sum.Retries, sum.Duration.Round(time.Millisecond), float64(sum.Ops)/sum.Duration.Seconds())
	if sum.Ops != len(ops) {
		return fmt.Errorf("committed %d of %d", sum.Ops, len(ops))
	}

	// ---- Resumable scan ----
	dir, err := os.MkdirTemp("", "bulk-load")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	checkpoint := filepath.Join(dir, "scan.token")
	q := query.New(readings).PageSize(pageSize)

	first, err := scan(ctx, q, checkpoint, firstPages)
	if err != nil {
		return err
	}
	fmt.Printf("scan run 1: %d entities, stopped after %d pages (token saved to %s)\n", len(first), firstPages, filepath.Base(checkpoint))
	second, err := scan(ctx, q, checkpoint, -1)
	if err != nil {
		return err
	}
	fmt.Printf("scan run 2: resumed from the file, %d entities, to the end\n", len(second))

	seen := map[string]bool{}
	for _, k := range append(first, second...) {
		if seen[k] {
			return fmt.Errorf("entity %s read twice", k)
		}
		seen[k] = true
	}
	if len(seen) != len(ops) {
		return fmt.Errorf("the two runs read %d entities, want %d", len(seen), len(ops))
	}
	if len(first) == 0 || len(second) == 0 || first[len(first)-1] >= second[0] {
		return errors.New("the second run did not start after the first one's last entity")
	}
	fmt.Println("OK: every entity loaded, and read exactly once across an interrupted scan")
	return nil
}

// scan reads q from the position saved in checkpoint (the beginning if the
// file does not exist), saves the position after every page, and stops after
// maxPages pages (-1: at the end). It returns the keys it read. Each call
// stands for a separate run of a program: all it shares with the last one is
// the file.
func scan(ctx context.Context, q query.Query[Reading], checkpoint string, maxPages int) ([]string, error) {
	token, err := os.ReadFile(checkpoint)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	cur, err := q.Resume(string(token)) // "" starts at the beginning
	if err != nil {
		return nil, err
	}
	var keys []string
	pages := 0
	for page, err := range cur.Pages(ctx) {
		if err != nil {
			return keys, err
		}
		for _, r := range page.Entities {
			keys = append(keys, r.PartitionKey+"/"+r.RowKey) // the work on each entity
		}
		// Checkpoint after the page's work is done. Write to a temporary
		// file and rename it, so a crash never leaves half a token.
		if err := writeFileAtomic(checkpoint, []byte(page.Token)); err != nil {
			return keys, err
		}
		if pages++; pages == maxPages {
			break
		}
	}
	return keys, nil
}

func writeFileAtomic(name string, data []byte) error {
	tmp := name + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, name)
}

// progressBar returns a batch progress callback drawing a one-line bar with
// \r on a terminal, and printing nothing but the end otherwise (in logs).
func progressBar() func(batch.Progress) {
	fi, err := os.Stdout.Stat()
	tty := err == nil && fi.Mode()&os.ModeCharDevice != 0
	const width = 30
	return func(p batch.Progress) {
		if !tty && !p.Final {
			return
		}
		done := 0
		if p.OpsTotal > 0 {
			done = width * p.Ops / p.OpsTotal
		}
		fmt.Printf("\r[%s%s] %6d/%d entities, %d/%d transactions",
			strings.Repeat("#", done), strings.Repeat(".", width-done), p.Ops, p.OpsTotal, p.Chunks, p.ChunksTotal)
		if p.Failed > 0 {
			fmt.Printf(", %d failed", p.Failed)
		}
		if p.Final {
			fmt.Println()
		}
	}
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
