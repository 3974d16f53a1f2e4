package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
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
	var mode, ckpt, rejectsPath string
	var create bool
	var parallel int
	var every time.Duration
	ff.register(fs)
	fs.StringVar(&mode, "mode", "upsert", "upsert (replace), merge (upsert merging properties), add (an existing entity is a reject) or add-missing (existing entities are left as they are)")
	fs.BoolVar(&create, "create", false, "create the table if it does not exist")
	fs.IntVar(&parallel, "parallel", batch.DefaultInFlight, fmt.Sprintf("transactions in flight, 1 to %d", query.MaxParallelism))
	fs.StringVar(&ckpt, "checkpoint", "", "file to save the input position in; a later run with the same file and arguments resumes")
	fs.StringVar(&rejectsPath, "rejects", "", "file to write refused lines to, as JSON lines {line, reason, input}")
	everyFlag(fs, &every)
	registerRate(fs, new(rateValue))
	pos, err := parse(fs, args, 2)
	if err != nil {
		return err
	}
	name, path := pos[0], pos[1]
	format, d, err := ff.resolve(path)
	if err != nil {
		return err
	}
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
		return usagef("--mode %q: want upsert, merge, add or add-missing", mode)
	}
	if parallel < 1 || parallel > query.MaxParallelism {
		return usagef("--parallel %d: want 1 to %d", parallel, query.MaxParallelism)
	}
	if ckpt != "" && path == "-" {
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
	job := fmt.Sprintf("import table=%s input=%q format=%s mode=%s delimiter=%q rejects=%q", name, path, format, mode, string(d), rejectsPath)
	j, err := newJob(e, "import", ckpt, job, every)
	if err != nil {
		return err
	}
	cp := j.cp
	if cp.Complete {
		// Nothing to do; the outcome is the one the run that completed it had.
		rejected, _ := strconv.ParseInt(cp.Extra[extraRejects], 10, 64)
		existing, _ := strconv.ParseInt(cp.Extra[extraExisting], 10, 64)
		fmt.Fprintf(e.stderr, "tablekit import: the checkpoint says this import is complete (%d entities, %d already there, %d rejects)\n", cp.Done, existing, rejected)
		return rejectsError(rejected, rejectsPath)
	}
	from := int64(0)
	if cp.Token != "" {
		from, err = strconv.ParseInt(strings.TrimPrefix(cp.Token, "line:"), 10, 64)
		if err != nil || !strings.HasPrefix(cp.Token, "line:") {
			return fmt.Errorf("checkpoint: bad position %q", cp.Token)
		}
		w.resumed = true
	}
	var in io.Reader = os.Stdin
	var total int64 = -1
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			total = fi.Size()
		}
		in = f
	}
	var read atomic.Int64 // input bytes, for the ETA
	in = countReader{in, &read}
	var next func() (inputRecord, error)
	if format == formatCSV {
		next = csvRecords(t, in, d)
	} else {
		next = jsonlRecords(t, in)
	}
	if next, err = checkFirst(next, format, path); err != nil {
		return err
	}
	if create {
		if err := conn.svc.CreateTable(ctx, name); err != nil {
			return err
		}
	}
	var rejOut *output
	var rejected int64
	if w.resumed {
		rejected, _ = strconv.ParseInt(cp.Extra[extraRejects], 10, 64)
		w.existing, _ = strconv.ParseInt(cp.Extra[extraExisting], 10, 64)
	}
	if rejectsPath != "" {
		var resume map[string]string
		if w.resumed {
			resume = cp.Extra
		}
		if rejOut, err = openOutputAt(rejectsPath, e.stdout, resume, extraRejectBytes); err != nil {
			return err
		}
		defer rejOut.close()
	}
	j.start(conn.retries)
	j.m.inRead, j.m.inTotal = &read, total
	j.m.rejects.Store(rejected)
	j.save = func(complete bool) error {
		return saveImport(j.sv, rejOut, j.token, j.done, j.m.rejects.Load(), w.existing, complete)
	}
	shown := 0
	err = pipe(ctx, 1, func(ctx context.Context, out chan<- round) error { return readRounds(ctx, next, from, out) },
		func(ctx context.Context, r round) error {
			stored, rejs, err := w.write(ctx, r.items)
			j.done += int64(stored)
			j.m.add(stored)
			if err != nil {
				return err
			}
			rejs = append(r.rejects, rejs...)
			for _, rj := range rejs {
				if shown++; shown <= 20 {
					fmt.Fprintf(e.stderr, "tablekit import: line %d: %s\n", rj.Line, rj.Reason)
				}
				if rejOut != nil {
					if _, err := rejOut.Write(rejectLine(rj)); err != nil {
						return err
					}
				}
			}
			j.m.rejects.Add(int64(len(rejs)))
			j.token = r.next
			return j.saveDue()
		})
	j.stop()
	if shown > 20 {
		fmt.Fprintf(e.stderr, "tablekit import: %d more rejects not shown\n", shown-20)
	}
	if w.existing > 0 {
		fmt.Fprintf(e.stderr, "tablekit import: %d entities were already there and were left as they are\n", w.existing)
	}
	if err := j.end(err); err != nil {
		return err
	}
	return rejectsError(j.m.rejects.Load(), rejectsPath)
}

// rejectsError is the outcome of an import that rejected n lines: the exit
// status says so.
func rejectsError(n int64, rejectsPath string) error {
	if n == 0 {
		return nil
	}
	if rejectsPath != "" {
		return fmt.Errorf("%d lines rejected (listed in %s)", n, rejectsPath)
	}
	return fmt.Errorf("%d lines rejected (see the messages above)", n)
}

// saveImport syncs the rejects file before the checkpoint names the
// position after the rejects it holds.
func saveImport(sv *saver, rejOut *output, token string, done, rejects, existing int64, complete bool) error {
	sv.Extra = map[string]string{extraRejects: strconv.FormatInt(rejects, 10)}
	if existing > 0 {
		sv.Extra[extraExisting] = strconv.FormatInt(existing, 10)
	}
	if rejOut != nil {
		n, err := rejOut.sync()
		if err != nil {
			return err
		}
		sv.Extra[extraRejectBytes] = strconv.FormatInt(n, 10)
	}
	return sv.save(token, done, complete)
}
