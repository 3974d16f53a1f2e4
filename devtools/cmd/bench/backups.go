package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/tablekit/tablekit/backup"
	"github.com/tablekit/tablekit/batch"
	"github.com/tablekit/tablekit/devtools/workload"
	"github.com/tablekit/tablekit/table"
)

// backups.go measures `tablekit backup` and `restore` as a user runs
// them, beside `export` and `import` of the same table in the same rounds:
// a full backup against an export, an incremental one after 1% of the
// entities changed against the full one (bytes stored, bytes read from
// the service, time), and a restore against an import.

const (
	bkExport  = "backup/export"
	bkFull    = "backup/full"
	bkIncr    = "backup/incremental"
	bkImport  = "backup/import"
	bkRestore = "backup/restore"
	// In-process runs of package backup over a transport that counts the
	// bytes read from Azurite; their samples carry the bytes stored in n's
	// place, so they are kept out of the rate tables.
	bkLibFull = "backup/lib-full"
	bkLibIncr = "backup/lib-incremental"
)

// bkOverlap is the incremental runs' --overlap: the table is written just
// before the full backup, and the default 10 minutes would read it all
// again; 2 s still covers this machine's one clock.
const bkOverlap = "2s"

// runBackups fills a table with every item, then measures each round's
// export, full backup, incremental backup after 1% changes, import and
// restore through the built command.
func (b *bench) runBackups(ctx context.Context) error {
	dir, err := os.MkdirTemp("", "tablekit-bench-backup-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin, err := buildTool(ctx, dir)
	if err != nil {
		return err
	}
	src := b.tableName("bk")
	tbl, err := tkTable(b.direct, src, nil)
	if err != nil {
		return err
	}
	svc, err := tkService(b.direct, nil)
	if err != nil {
		return err
	}
	if err := svc.CreateTable(ctx, src); err != nil {
		return err
	}
	defer svc.DeleteTable(context.Background(), src)
	if err := b.writeItems(ctx, tbl, 0); err != nil {
		return err
	}
	n := len(b.items)
	par := fmt.Sprint(b.cfg.scanParallel)
	for round := range b.cfg.rounds {
		rctx, cancel := context.WithTimeout(ctx, b.cfg.scenarioTimeout)
		err := b.backupRound(rctx, bin, svc, tbl, src, filepath.Join(dir, fmt.Sprint(round)), par, n, round)
		cancel()
		if err != nil {
			return fmt.Errorf("backup round %d: %w", round+1, err)
		}
	}
	return b.backupBytes(ctx, tbl, src, filepath.Join(dir, "lib"))
}

// writeItems writes every item, or with v > 0 the first 1% of them at
// version v: the changes an incremental backup stores.
func (b *bench) writeItems(ctx context.Context, tbl *table.Table[workload.Item], v int64) error {
	items := b.items
	if v > 0 {
		items = items[:max(1, len(items)/100)]
	}
	ops := make([]batch.Op[workload.Item], len(items))
	for i, it := range items {
		if v > 0 {
			it.Version = v
		}
		ops[i] = batch.Op[workload.Item]{Entity: it}
	}
	_, err := batch.Write(ctx, tbl, ops, nil)
	return err
}

func (b *bench) backupRound(ctx context.Context, bin string, svc *table.Service, tbl *table.Table[workload.Item], src, dir, par string, n, round int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	file := filepath.Join(dir, "export.jsonl")
	store := filepath.Join(dir, "store")
	runs := []struct {
		key  string
		args []string
		pre  func() error
	}{
		{bkExport, []string{"export", src, "-o", file, "--parallel", par}, nil},
		{bkFull, []string{"backup", src, store, "--full", "--parallel", par}, nil},
		{bkIncr, []string{"backup", src, store, "--parallel", par, "--overlap", bkOverlap},
			func() error { return b.writeItems(ctx, tbl, int64(round+2)) }},
		{bkImport, []string{"import", b.tableName("bkimp"), file, "--create"}, nil},
		{bkRestore, []string{"restore", store, b.tableName("bkres")}, nil},
	}
	for _, r := range runs {
		if r.pre != nil {
			if err := r.pre(); err != nil {
				return err
			}
		}
		s, err := b.tool(ctx, bin, n, r.args...)
		if err != nil {
			return fmt.Errorf("%s: %w", r.key, err)
		}
		b.record(r.key, s)
		switch r.args[0] {
		case "import":
			defer svc.DeleteTable(context.Background(), r.args[1])
		case "restore":
			defer svc.DeleteTable(context.Background(), r.args[2])
		}
	}
	infos, err := backup.List(ctx, backup.Dir(store))
	if err != nil {
		return err
	}
	if len(infos) != 2 || !infos[0].Full || infos[1].Full || infos[1].Entities != int64(n) {
		return fmt.Errorf("the store holds %d backups, want a full one and an incremental one of %d entities", len(infos), n)
	}
	return nil
}

// backupBytes runs a full and an incremental backup in this process over a
// transport that counts what Azurite sends, for the bytes each reads; the
// samples' n is the bytes the backup stored.
func (b *bench) backupBytes(ctx context.Context, tbl *table.Table[workload.Item], src, dir string) error {
	base, err := tunedTransport()
	if err != nil {
		return err
	}
	var w wire
	svc, err := tkService(b.direct, &table.Options{Transport: w.transport(base)})
	if err != nil {
		return err
	}
	st := backup.Dir(dir)
	for _, key := range []string{bkLibFull, bkLibIncr} {
		if key == bkLibIncr {
			if err := b.writeItems(ctx, tbl, 1000); err != nil {
				return err
			}
		}
		w.reset()
		o := &backup.Options{Parallelism: b.cfg.scanParallel, Overlap: 2 * time.Second}
		var in backup.Info
		s, err := b.m.measure(ctx, func(ctx context.Context) (int, error) {
			var err error
			in, err = backup.Run(ctx, svc, src, st, o)
			return len(b.items), err
		})
		if err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		s.n, s.bytes, s.reqs = int(in.Bytes), w.read.Load(), int(w.responses.Load())
		b.res[key] = append(b.res[key], s)
		b.log("%-28s %d bytes stored, %d bytes read, %.2fs", key, in.Bytes, s.bytes, s.wall.Seconds())
	}
	return nil
}

// backupSection reports the backup runs and judges their targets.
func (b *bench) backupSection() Section {
	n := len(b.items)
	rows := []trow{
		{bkExport, "`tablekit export TABLE -o FILE`"},
		{bkFull, "`tablekit backup TABLE DIR --full`"},
		{bkIncr, "`tablekit backup TABLE DIR` after 1% changed (--overlap " + bkOverlap + ")"},
		{bkImport, "`tablekit import TABLE FILE --create` (the exported file)"},
		{bkRestore, "`tablekit restore DIR TABLE` (the incremental backup's state)"},
	}
	rates := b.throughputTable("Locally, rounds interleaved (each rate is the table's entities over the run's time):", rows, []trow{{bkExport, "export"}}, false)

	stored := func(k string) float64 { return b.med(k, func(s sample) float64 { return float64(s.n) }) }
	read := func(k string) float64 { return b.med(k, func(s sample) float64 { return float64(s.bytes) }) }
	wall := func(k string) float64 { return b.med(k, func(s sample) float64 { return s.wall.Seconds() }) }
	sizes := Table{
		Caption: "Package backup in this process, a full backup then an incremental one after 1% changed, bytes read counted on the connections:",
		Header:  []string{"Backup", "bytes stored", "bytes read from Azurite", "seconds"},
		Rows: [][]string{
			{"full", fmtNum(stored(bkLibFull)), fmtNum(read(bkLibFull)), fmtNum(wall(bkLibFull))},
			{"incremental", fmtNum(stored(bkLibIncr)), fmtNum(read(bkLibIncr)), fmtNum(wall(bkLibIncr))},
		},
	}
	return Section{
		Title: fmt.Sprintf("Backups: %s entities", fmtInt(n)),
		Text: []string{
			"A full backup reads the table once, with the parallel scan an export makes (split by the same dozen keys-only queries), and takes its key set from that scan; its lines are compressed, hashed and stored by a goroutine beside the scan. An incremental one reads the entities whose Timestamp is after the previous backup's start minus --overlap, then the keys with a keys-only scan, to find deletes. A restore writes the backup's entities with the bulk writer an import uses, after checking every file's SHA-256.",
		},
		Tables: []Table{rates, sizes},
	}
}

// backupTargets judges the backup runs; they are listed with every other
// target at the top of the report.
func (b *bench) backupTargets() []Target {
	stored := func(k string) float64 { return b.med(k, func(s sample) float64 { return float64(s.n) }) }
	read := func(k string) float64 { return b.med(k, func(s sample) float64 { return float64(s.bytes) }) }
	rate := func(name, num, den, denName string) Target {
		t := b.judge(ratioTarget(name, b.ratio(num, den), 0.9, false), num, den)
		if t.Status == Fail {
			t.Why = b.cliWhy(num, den, denName)()
		}
		return t
	}
	return []Target{
		rate("tablekit backup --full vs tablekit export, local", bkFull, bkExport, "the export"),
		rate("tablekit restore vs tablekit import, local", bkRestore, bkImport, "the import"),
		ratioTarget("incremental backup after 1% changed vs full: bytes stored", stored(bkLibIncr)/stored(bkLibFull), 0.05, true),
		ratioTarget("incremental backup after 1% changed vs full: bytes read from the service", read(bkLibIncr)/read(bkLibFull), 0.25, true),
	}
}
