package main

import (
	"context"
	"errors"
	"fmt"
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
	if ckpt.path != "" && path == "-" {
		return usagef("--checkpoint needs a FILE: standard input cannot be read again")
	}
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
	dst := &importSink{e: e, in: in, w: w, name: name, create: create, svc: conn.svc, rejectsPath: rejectsPath}
	return (&jobRun{job: j, retries: conn.retries, src: in, dst: dst,
		what: fmt.Sprintf("table %s, %d already there, %d rejects", name, existing, rejected)}).run(ctx)
}

// fileSource is an input file's entities (JSON Lines or CSV, perhaps
// gzipped), read from the line the job's position names.
type fileSource struct {
	t      *dynTable
	path   string
	format string
	delim  rune

	from    int64 // the first line to read
	resumed bool  // the job resumes an earlier run's
	read    atomic.Int64
	inp     *input
	next    func() (inputRecord, error)
}

func (s *fileSource) check(j *job) (err error) {
	if tok := j.cp.Token; tok != "" {
		s.from, err = strconv.ParseInt(strings.TrimPrefix(tok, "line:"), 10, 64)
		if err != nil || !strings.HasPrefix(tok, "line:") {
			return fmt.Errorf("checkpoint: bad position %q", tok)
		}
		s.resumed = true
	}
	if s.inp, err = openInput(s.path, os.Stdin, &s.read); err != nil {
		return err
	}
	if s.format == formatCSV {
		s.next = csvRecords(s.t, s.inp.r, s.delim)
	} else {
		s.next = jsonlRecords(s.t, s.inp.r)
	}
	s.next, err = checkFirst(s.next, s.format, s.path)
	return err
}

func (*fileSource) open(context.Context, *job) error { return nil }

func (s *fileSource) close() {
	if s.inp != nil {
		s.inp.close()
	}
}

// rounds cuts the input into rounds from the job's position.
func (s *fileSource) rounds(ctx context.Context, ops int, out chan<- round) error {
	return readRounds(ctx, s.next, s.from, ops, out)
}

// importSink writes an input's entities to a table, a round at a time,
// and the lines it refuses to --rejects.
type importSink struct {
	e           *env
	in          *fileSource
	w           *roundWriter
	name        string
	svc         *table.Service
	create      bool
	rejectsPath string
	rejOut      *output
	shown       int // rejects printed
}

func (s *importSink) check(j *job) (err error) {
	s.w.resumed = s.in.resumed
	if s.w.resumed {
		s.w.existing, _ = strconv.ParseInt(j.cp.Extra[extraExisting], 10, 64)
	}
	if s.rejectsPath != "" {
		var resume map[string]string
		if s.w.resumed {
			resume = j.cp.Extra
		}
		s.rejOut, err = openOutputAt(s.rejectsPath, s.e.stdout, resume, extraRejectBytes)
	}
	return err
}

func (s *importSink) open(ctx context.Context, _ *job) error {
	if s.create {
		return s.svc.CreateTable(ctx, s.name)
	}
	return nil
}

func (s *importSink) move(ctx context.Context, j *job) error {
	j.m.inRead, j.m.inTotal = &s.in.read, s.in.inp.size
	if s.w.resumed {
		rejected, _ := strconv.ParseInt(j.cp.Extra[extraRejects], 10, 64)
		j.m.rejects.Store(rejected)
	}
	j.save = func(complete bool) error {
		return saveImport(j.sv, s.rejOut, j.token, j.done, j.m.rejects.Load(), s.w.existing, complete)
	}
	err := pipe(ctx, 1, func(ctx context.Context, out chan<- round) error { return s.in.rounds(ctx, j.roundOps, out) },
		func(ctx context.Context, r round) error { return s.write(ctx, j, r) })
	j.m.bytes.Store(s.in.read.Load()) // the input's, as stored: the summary says them
	return err
}

// write writes a round and reports its rejects, then moves the position
// past it.
func (s *importSink) write(ctx context.Context, j *job, r round) error {
	existing := s.w.existing
	stored, rejs, err := s.w.write(ctx, r.items)
	if err != nil {
		// The position stays before the round, so the run that
		// resumes writes all of it again and counts it then.
		s.w.existing = existing
		return err
	}
	j.done += int64(stored)
	j.m.add(stored)
	rejs = append(r.rejects, rejs...)
	for _, rj := range rejs {
		if s.shown++; s.shown <= 20 {
			fmt.Fprintf(s.e.stderr, "tablekit import: line %d: %s\n", rj.Line, message(errors.New(rj.Reason)))
		}
		if s.rejOut != nil {
			if _, err := s.rejOut.Write(rejectLine(rj)); err != nil {
				return err
			}
		}
	}
	j.m.rejects.Add(int64(len(rejs)))
	j.token = r.next
	return j.saveDue()
}

func (s *importSink) stopped(*job) {
	if s.shown > 20 {
		fmt.Fprintf(s.e.stderr, "tablekit import: %d more rejects not shown\n", s.shown-20)
	}
	if s.w.existing > 0 {
		fmt.Fprintf(s.e.stderr, "tablekit import: %d entities were already there and were left as they are\n", s.w.existing)
	}
}

func (s *importSink) close(j *job, err error) error {
	if s.rejOut != nil {
		s.rejOut.close()
	}
	if err != nil {
		return err
	}
	return rejectsError(j.m.rejects.Load(), s.rejectsPath)
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
