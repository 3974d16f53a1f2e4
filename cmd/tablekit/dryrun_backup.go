package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/backup"
	"github.com/tablekit/tablekit/batch"
	"github.com/tablekit/tablekit/query"
	"github.com/tablekit/tablekit/table"
)

// dryRestoreRound is how many of the backup's entities a restore's dry run
// plans at once: it bounds the memory of the count. A partition whose
// entities the backup's files spread over rounds may count a transaction
// more than the restore, which keeps a partition's transaction open
// across its input, sends.
const dryRestoreRound = 50_000

// dryRestore counts a restore: the backup's entities read from the store
// (its files checked as the restore checks them) and planned as the
// restore's upserts, the table read only as the mode needs (one key for
// --mode empty, every key for replace and add-missing), the deletes of
// replace. Creating a missing table is a single write.
func dryRestore(ctx context.Context, in *jobInput, st backup.Store, name string, o *backup.RestoreOptions, d *dryRun) error {
	t, err := table.New[table.RawEntity](in.src.svc, name)
	if err != nil {
		return err
	}
	info, ents, err := backup.Entities(ctx, t, st, &backup.ReadOptions{ID: o.ID, Before: o.Before})
	if err != nil {
		return backupUsage(err)
	}
	var plan requestPlan
	existing := map[keyEntity]bool{}
	missing := false
	q := query.New(t).Select()
	if o.Mode == backup.IntoEmpty {
		q = q.Limit(1)
	}
	for e, err := range q.All(ctx) {
		if errors.Is(err, tablekit.ErrTableNotFound) {
			missing = true
			break
		}
		if err != nil {
			return err
		}
		if o.Mode == backup.IntoEmpty {
			return notEmpty(fmt.Errorf("%w: %s", backup.ErrNotEmpty, name))
		}
		existing[keyEntity{e.PartitionKey, e.RowKey}] = true
	}
	if missing {
		plan.singles++ // the restore creates the table
	}
	add := func(ops []batch.Op[table.RawEntity]) error {
		sizes, err := batch.Plan(t, ops)
		for _, n := range sizes {
			plan.transactions++
			plan.txOps += int64(n)
		}
		return err
	}
	var ops []batch.Op[table.RawEntity]
	inBackup := map[keyEntity]bool{}
	for e, err := range ents {
		if err != nil {
			return backupUsage(err)
		}
		k := keyEntity{e.PartitionKey, e.RowKey}
		if o.Mode == backup.Replace {
			inBackup[k] = true
		}
		if o.Mode == backup.AddMissing && existing[k] {
			continue
		}
		e.ETag = ""
		ops = append(ops, batch.Op[table.RawEntity]{Entity: e})
		if len(ops) == dryRestoreRound {
			if err := add(ops); err != nil {
				return err
			}
			ops = ops[:0]
		}
	}
	if err := add(ops); err != nil {
		return err
	}
	if o.Mode == backup.Replace {
		var dels []batch.Op[table.RawEntity]
		for k := range existing {
			if !inBackup[k] {
				dels = append(dels, batch.Op[table.RawEntity]{Kind: batch.Delete, PartitionKey: k.PartitionKey, RowKey: k.RowKey, ETag: table.AnyETag})
			}
		}
		if err := add(dels); err != nil {
			return err
		}
	}
	return printDry(in, plan, "restore", d, fmt.Sprintf("backup %s of %s (%s)", info.ID, info.Table, kind(info)))
}

// dryBackup counts a backup's cost, which is its reads: a keys-only scan
// of the whole table, the query pages of a full backup. An incremental backup reads no more pages than that by
// Timestamp, and as many by ETag (each key's ETag). The files it would
// store are blobs or local files, no table transactions.
func dryBackup(ctx context.Context, in *jobInput, name string, d *dryRun) error {
	t, err := table.New[keyEntity](in.src.svc, name)
	if err != nil {
		return err
	}
	n := 0
	for _, err := range query.New(t).Select().All(ctx) {
		if err != nil {
			return err
		}
		n++
	}
	return printDry(in, requestPlan{}, "backup", d, fmt.Sprintf("table %s: %d entities, read as a full backup reads them", name, n))
}

// printDry prints a dry run's plan, its reads counted by the connection,
// after a line saying what was counted.
func printDry(in *jobInput, plan requestPlan, verb string, d *dryRun, what string) error {
	if w := in.retries.sent.writes.Load(); w > 0 {
		// A dry run that wrote would be a bug worth stopping on.
		return fmt.Errorf("the dry run sent %d requests other than reads", w)
	}
	plan.pages = in.retries.sent.reads.Load()
	fmt.Fprintf(in.e.stderr, "tablekit %s --dry-run: %s\n", verb, what)
	return plan.print(in.e.stdout, verb, d.price)
}
