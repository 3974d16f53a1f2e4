package main

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/tablekit/tablekit/batch"
	"github.com/tablekit/tablekit/query"
	"github.com/tablekit/tablekit/table"
)

func init() {
	register(&command{
		name: "import", args: "TABLE FILE|- [--format jsonl|csv] [--mode upsert|merge|add|add-missing] [--create] [--parallel N] [--checkpoint FILE] [--rejects FILE] [--delimiter C]",
		summary: "write the entities of a JSON Lines or Storage Explorer CSV file, in entity group transactions",
		example: `tablekit import orders orders.jsonl --create --parallel 16 --checkpoint imp.ckpt --rejects bad.jsonl
# interrupted, even by kill -9? the same command again completes the import
tablekit import orders orders.csv --mode merge    # CSV, from the extension
# restore what is missing from a backup, leaving what is there as it is:
tablekit import orders backup.jsonl --mode add-missing --checkpoint restore.ckpt
tablekit import orders export.csv --delimiter ';'`,
		run: runImport,
	})
}

const (
	extraRejectBytes = "rejects-bytes"
	extraRejects     = "rejects"
	extraExisting    = "existing" // --mode add-missing: entities found already there
)

// lineToken is an import's checkpoint position: the next input line.
func lineToken(n int64) string { return "line:" + strconv.FormatInt(n, 10) }

func runImport(ctx context.Context, e *env, args []string) error {
	c := commands["import"]
	fs := newFlags(e, c)
	src := sourceFlags()
	src.register(fs)
	var ff formatFlags
	var mode, rejectsPath string
	var ckpt checkpointFlags
	var create bool
	var parallel int
	var every time.Duration
	ff.register(fs)
	fs.StringVar(&mode, "mode", "upsert", "upsert (replace), merge (upsert merging properties), add (an existing entity is a reject) or add-missing (existing entities are left as they are)")
	fs.BoolVar(&create, "create", false, "create the table if it does not exist")
	fs.IntVar(&parallel, "parallel", batch.DefaultInFlight, fmt.Sprintf("transactions in flight, 1 to %d", query.MaxParallelism))
	ckpt.register(fs)
	fs.StringVar(&rejectsPath, "rejects", "", "file to write refused lines to, as JSON lines {line, reason, input}")
	everyFlag(fs, &every)
	registerRate(fs, new(rateValue))
	dry := registerDryRun(fs)
	pos, err := parse(fs, args, 2)
	if err != nil {
		return err
	}
	name, path := pos[0], pos[1]
	format, d, err := ff.resolve(path)
	if err != nil {
		return err
	}
	w, err := modeWriter(mode)
	if err != nil {
		return err
	}
	if parallel < 1 || parallel > query.MaxParallelism {
		return usagef("--parallel %d: want 1 to %d", parallel, query.MaxParallelism)
	}
	if err := dry.check(ckpt, flagIf(rejectsPath, "--rejects")); err != nil {
		return err
	}
	if ckpt.path != "" && path == "-" {
		return usagef("--checkpoint needs a FILE: standard input cannot be read again")
	}
	src.rate = rateOf(fs)
	conn, err := src.open(e, new(retryCount))
	if err != nil {
		return err
	}
	t, err := table.New[table.Entity](conn.svc, name)
	if err != nil {
		return &usageError{err.Error()}
	}
	w.t = t
	w.opts = &batch.WriteOptions{InFlight: parallel, ContinueOnError: true, Retry: conn.policy}
	var rejectsID string
	if rejectsPath != "" {
		rejectsID = filePath(rejectsPath)
	}
	id := jobID{{"command", "import"}, {"table", name}, {"input", filePath(path)}, {"format", fmt.Sprint(format)},
		{"mode", mode}, {"delimiter", string(d)}, {"rejects", rejectsID}}
	j, err := newJob(ctx, e, "import", ckpt, id, every)
	if err != nil {
		return err
	}
	w.opts.Progress = j.committed()
	rejected, _ := strconv.ParseInt(j.cp.Extra[extraRejects], 10, 64)
	existing, _ := strconv.ParseInt(j.cp.Extra[extraExisting], 10, 64)
	in := &fileSource{t: t, path: path, format: format, delim: d}
	var dst jobSink = &importSink{e: e, in: in, w: w, name: name, create: create, svc: conn.svc, rejectsPath: rejectsPath}
	if dry.on {
		dst = &dryRunSink{e: e, verb: "import", d: dry, sent: &conn.retries.sent, count: dryImport(in, w)}
	}
	return (&jobRun{job: j, retries: conn.retries, src: in, dst: dst,
		what: fmt.Sprintf("table %s, %d already there, %d rejects", name, existing, rejected)}).run(ctx)
}

// modeWriter is the writer of import's --mode.
func modeWriter(mode string) (*roundWriter, error) {
	w := &roundWriter{}
	switch mode {
	case "upsert":
		w.kind, w.mode = batch.Upsert, table.Replace
	case "merge":
		w.kind, w.mode = batch.Upsert, table.Merge
	case "add":
		w.kind = batch.Add
	case "add-missing":
		w.kind, w.keepExisting = batch.Add, true
	default:
		return nil, usagef("--mode %q: want upsert, merge, add or add-missing", mode)
	}
	return w, nil
}
