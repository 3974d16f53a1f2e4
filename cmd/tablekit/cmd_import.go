package main

import (
	"context"
	"flag"
	"fmt"
	"strconv"

	"github.com/tablekit/tablekit/batch"
	"github.com/tablekit/tablekit/query"
	"github.com/tablekit/tablekit/table"
)

func init() {
	register(&command{
		name: "import", args: "TABLE FILE|- [--format jsonl|csv] [--mode upsert|merge|add|add-missing] [--create] [--parallel N] [--checkpoint FILE] [--rejects FILE] [--delimiter C] [--dry-run [--price P]]",
		summary: "write the entities of a JSON Lines or Storage Explorer CSV file, in entity group transactions",
		example: `tablekit import orders orders.jsonl --create --parallel 16 --checkpoint imp.ckpt --rejects bad.jsonl
# interrupted, even by kill -9? the same command again completes the import
tablekit import orders orders.csv --mode merge    # CSV, from the extension
# restore what is missing from a backup, leaving what is there as it is:
tablekit import orders backup.jsonl --mode add-missing --checkpoint restore.ckpt
tablekit import orders export.csv --delimiter ';'`,
		run: runJob(importJob),
	})
}

const (
	extraRejectBytes = "rejects-bytes"
	extraRejects     = "rejects"
	extraExisting    = "existing" // --mode add-missing: entities found already there
)

// lineToken is an import's checkpoint position: the next input line.
func lineToken(n int64) string { return "line:" + strconv.FormatInt(n, 10) }

func importJob() *jobCommand {
	var ff formatFlags
	var mode, rejectsPath, format string
	var delim rune
	var create bool
	var parallel int
	var w *roundWriter
	var dry *dryRun
	return &jobCommand{name: "import", args: 2, every: true,
		flags: func(fs *flag.FlagSet, in *jobInput) {
			ff.register(fs)
			fs.StringVar(&mode, "mode", "upsert", "upsert (replace), merge (upsert merging properties), add (an existing entity is a reject) or add-missing (existing entities are left as they are)")
			fs.BoolVar(&create, "create", false, "create the table if it does not exist")
			fs.IntVar(&parallel, "parallel", batch.DefaultInFlight, fmt.Sprintf("transactions in flight, 1 to %d", query.MaxParallelism))
			in.sf.ckpt.register(fs)
			fs.StringVar(&rejectsPath, "rejects", "", "file to write refused lines to, as JSON lines {line, reason, input}")
			registerRate(fs, &in.sf.rate)
			dry = registerDryRun(fs)
		},
		check: func(in *jobInput) (err error) {
			path := in.pos[1]
			if format, delim, err = ff.resolve(path); err != nil {
				return err
			}
			if w, err = modeWriter(mode); err != nil {
				return err
			}
			if parallel < 1 || parallel > query.MaxParallelism {
				return usagef("--parallel %d: want 1 to %d", parallel, query.MaxParallelism)
			}
			if err := dry.check(in.sf.ckpt, flagIf(rejectsPath, "--rejects")); err != nil {
				return err
			}
			if in.sf.ckpt.path != "" && path == "-" {
				return usagef("--checkpoint needs a FILE: standard input cannot be read again")
			}
			return nil
		},
		build: func(ctx context.Context, in *jobInput) (*jobRun, error) {
			name, path := in.pos[0], in.pos[1]
			t, err := table.New[table.Entity](in.src.svc, name)
			if err != nil {
				return nil, &usageError{err.Error()}
			}
			w.t = t
			var rt *table.Table[table.RawEntity]
			if format == formatJSONL && w.kind != batch.Add {
				// Lines move as raw entities, their JSON checked once and
				// sent as it is. Adds keep table.Entity: an add that finds
				// an entity compares its properties by value (settleAdds).
				if rt, err = table.New[table.RawEntity](in.src.svc, name); err != nil {
					return nil, &usageError{err.Error()}
				}
				w.rt = rt
			}
			w.opts = &batch.WriteOptions{InFlight: parallel, ContinueOnError: true, Retry: in.src.policy}
			var rejectsID string
			if rejectsPath != "" {
				rejectsID = filePath(rejectsPath)
			}
			id := jobID{{"command", "import"}, {"table", name}, {"input", filePath(path)}, {"format", fmt.Sprint(format)},
				{"mode", mode}, {"delimiter", string(delim)}, {"rejects", rejectsID}}
			j, err := newJob(ctx, in.e, "import", in.sf.ckpt, id, in.every)
			if err != nil {
				return nil, err
			}
			w.opts.Progress = j.committed()
			rejected, _ := strconv.ParseInt(j.cp.Extra[extraRejects], 10, 64)
			existing, _ := strconv.ParseInt(j.cp.Extra[extraExisting], 10, 64)
			src := &fileSource{t: t, rt: rt, path: path, format: format, delim: delim}
			var dst jobSink = &importSink{e: in.e, in: src, w: w, name: name, create: create, svc: in.src.svc, rejectsPath: rejectsPath}
			if dry.on {
				dst = &dryRunSink{e: in.e, verb: "import", d: dry, sent: &in.retries.sent, count: dryImport(src, w)}
			}
			return &jobRun{job: j, retries: in.retries, src: src, dst: dst,
				what: fmt.Sprintf("table %s, %d already there, %d rejects", name, existing, rejected)}, nil
		}}
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
