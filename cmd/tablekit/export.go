package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/tablekit/tablekit/query"
	"github.com/tablekit/tablekit/table"
)

func init() {
	register(&command{
		name: "export", args: "TABLE [-o FILE|-] [--format jsonl|csv] [--delimiter C] [--filter ODATA] [--partition PK] [--prefix P] [--select a,b] [--limit N] [--ordered] [--plan FILE --segment i/n] [--parallel N] [--checkpoint FILE]",
		summary: "write the entities to JSON Lines (exact EDM types) or Storage Explorer CSV, with a parallel scan",
		example: `tablekit export orders -o orders.jsonl --parallel 16 --checkpoint orders.ckpt
# interrupted, even by kill -9? the same command again completes orders.jsonl
tablekit export orders --select Name,Total -o orders.csv    # CSV, from the extension
tablekit export logs --filter "Level eq 'error'" -o errors.jsonl.gz   # gzip, from the name
tablekit export orders --ordered -o orders.jsonl          # in key order: files of two runs diff
tablekit export orders --ordered --limit 10               # the first 10 in key order`,
		run: runExport,
	})
}

// extraColumns keeps a CSV export's columns in its checkpoint: the header
// is written once, so a resumed run must not compute other columns.
const extraColumns = "csv-columns"

// everyFlag is how often export, import and copy save their checkpoint.
func everyFlag(fs *flag.FlagSet, d *time.Duration) {
	fs.DurationVar(d, "checkpoint-every", checkpointEvery, "how often to save --checkpoint: the most work a crash can lose")
}

func runExport(ctx context.Context, e *env, args []string) error {
	var sf scanFlags
	var ff formatFlags
	var out, sel string
	var every time.Duration
	var limit int
	var ordered bool
	conn, name, err := tableCommand(e, commands["export"], args, func(fs *flag.FlagSet) {
		sf.register(fs)
		everyFlag(fs, &every)
		fs.StringVar(&out, "o", "-", "output file, - for stdout (--checkpoint needs a file)")
		ff.register(fs)
		fs.StringVar(&sel, "select", "", selectHelp)
		fs.IntVar(&limit, "limit", 0, "at most this many entities (per share with --segment); 0: all")
		fs.BoolVar(&ordered, "ordered", false, "write the entities in key order (PartitionKey, then RowKey), for files that diff: --parallel's segments are merged in key order")
	})
	if err != nil {
		return err
	}
	format, delim, err := ff.resolve(out)
	if err != nil {
		return err
	}
	if sf.ckpt.path != "" && out == "-" {
		return usagef("--checkpoint needs -o FILE: a resumed run truncates the file to the saved position")
	}
	if limit < 0 {
		return usagef("--limit %d: want 0 (all) or more", limit)
	}
	cols, err := selectNames(sel)
	if err != nil {
		return err
	}
	var delimID, limitID string
	if format == formatCSV && delim != ',' {
		delimID = string(delim)
	}
	if limit > 0 {
		limitID = strconv.Itoa(limit)
	}
	j, plan, err := sf.start(ctx, e, "export", name, every, jobField{"output", filePath(out)}, jobField{"format", fmt.Sprint(format)},
		jobField{"select", sel}, jobField{"delimiter", delimID}, jobField{"limit", limitID}, jobField{"ordered", strconv.FormatBool(ordered)})
	if err != nil {
		return err
	}
	plan.ordered = ordered
	if limit > 0 && j.cp.Done >= int64(limit) && !j.cp.Complete {
		j.cp.Token, j.token = scanEnd, scanEnd // all the limit asks for was read
	}
	t, err := table.New[table.Entity](conn.svc, name)
	if err != nil {
		return err
	}
	q := query.New(t)
	if sel != "" {
		q = q.Select(withTimestamp(cols)...)
	}
	src := &scanSource{conn.svc, &plan}
	dst := &exportSink{e: e, src: src, conn: conn, q: q, out: out, format: format, delim: delim, limit: limit, selected: sel != "", cols: cols}
	return (&jobRun{job: j, retries: conn.retries, what: "output " + out, src: src, dst: dst}).run(ctx)
}

// exportSink writes a scan's entities to a file (or stdout) in JSON Lines
// or CSV.
type exportSink struct {
	e        *env
	src      *scanSource
	conn     *connection
	q        query.Query[table.Entity]
	out      string
	format   string
	delim    rune
	limit    int
	selected bool     // --select: cols are the CSV columns
	cols     []string // --select's names, then the CSV columns

	resume map[string]string // the checkpoint's, when the output is resumed
	o      *output
	w      entityWriter
	cur    *query.ParallelCursor[table.Entity]
	moved  bool // the run got to writing
}

// scanned cuts the output to what the checkpoint saw written: everything
// was read before the run was marked complete.
func (s *exportSink) scanned(j *job) error {
	o, err := openOutput(s.out, s.e.stdout, j.cp.Extra)
	if err == nil {
		err = o.close()
	}
	return err
}

// check opens the output before any request: -o naming a file that cannot
// be written is a usage error, with nothing sent.
func (s *exportSink) check(j *job) (err error) {
	if j.cp.Token != "" {
		s.resume = j.cp.Extra
	}
	s.o, err = openOutput(s.out, s.e.stdout, s.resume)
	return err
}

func (s *exportSink) open(ctx context.Context, j *job) (err error) {
	tuneStreamGC() // for both passes of a CSV export
	if s.format == formatCSV {
		if s.cols, err = csvColumns(ctx, s.e, s.q, *s.src.plan, s.conn, j.cp, j.sv, s.selected, s.cols); err != nil {
			return err
		}
		b, _ := json.Marshal(s.cols)
		j.sv.Extra[extraColumns] = string(b)
		s.w.csv = newCSVWriter(s.o, s.delim, s.cols)
		s.w.csv.wrote = s.resume != nil // the header is in the file already
	} else {
		s.w.jsonl = s.o
	}
	q := s.q
	if s.limit > 0 {
		// After the CSV columns' pass, which reads the whole scan: a limit
		// without --ordered picks no set entities.
		q = q.Limit(s.limit - int(j.done))
	}
	s.cur, err = scan(s.src, q, j)
	return err
}

func (s *exportSink) move(ctx context.Context, j *job) error {
	s.moved = true
	// A save flushes and syncs the output before the checkpoint names a
	// position after it: a crash then leaves at most a tail to truncate.
	j.save = func(complete bool) error {
		if err := s.w.flush(); err != nil {
			return err
		}
		n, err := s.o.sync()
		if err != nil {
			return err
		}
		j.m.bytes.Store(n)
		if j.sv.Extra == nil {
			j.sv.Extra = map[string]string{}
		}
		j.sv.Extra[extraBytes] = strconv.FormatInt(n, 10)
		return j.sv.save(j.at(), j.done, complete)
	}
	err := stream(ctx, j, s.cur, s.w.write)
	// The summary shows the output's bytes: written out first, so that
	// every run (every segment) says them, not only one that saved on the way.
	if s.w.flush() == nil {
		if n, serr := s.o.sync(); serr == nil {
			j.m.bytes.Store(n)
		}
	}
	return err
}

// close closes the output; one the run failed before writing to is
// removed if the run created it.
func (s *exportSink) close(_ *job, err error) error {
	if !s.moved {
		s.o.discard()
		return err
	}
	if cerr := s.o.close(); err == nil {
		err = cerr
	}
	return err
}

// entityWriter writes entities in the chosen format.
type entityWriter struct {
	jsonl *output
	csv   *csvWriter
	lines lineWriter
}

func (w *entityWriter) write(ent table.Entity) error {
	if w.csv != nil {
		r, err := entityRow(ent)
		if err != nil {
			return fmt.Errorf("%s/%s: %w", ent.PartitionKey, ent.RowKey, err)
		}
		if err := w.csv.Write(r); err != nil {
			return fmt.Errorf("%s/%s: %w (a property added since the first pass? export again with --restart)", ent.PartitionKey, ent.RowKey, err)
		}
		return nil
	}
	b, err := w.lines.line(ent)
	if err != nil {
		return fmt.Errorf("%s/%s: %w", ent.PartitionKey, ent.RowKey, err)
	}
	_, err = w.jsonl.Write(b)
	return err
}

func (w *entityWriter) flush() error {
	if w.csv != nil {
		return w.csv.Flush()
	}
	return nil
}

// The checkpoint of a CSV export's first pass: its scan's position, the
// columns seen before it and how many entities that was.
const (
	extraColumnsPass = "csv-columns-pass"
	extraColumnsSeen = "csv-columns-seen"
	extraColumnsRead = "csv-columns-read"
)

// csvColumns decides a CSV export's columns before its header: from the
// checkpoint when resuming, from --select when given, else from a first
// pass over the same scan that only collects property names. Two passes
// cost a second read of the table but keep memory bounded and every
// column, however rare; reading ahead a page would miss late columns. The
// first pass saves its position as the second does (with no token yet for
// the second), so a resumed run goes on with it where it stopped.
func csvColumns(ctx context.Context, e *env, q query.Query[table.Entity], plan scanPlan, conn *connection, cp *Checkpoint, sv *saver, selected bool, cols []string) ([]string, error) {
	if s, ok := cp.Extra[extraColumns]; ok {
		var saved []string
		if err := json.Unmarshal([]byte(s), &saved); err != nil {
			return nil, fmt.Errorf("checkpoint: bad %s: %w", extraColumns, err)
		}
		return saved, nil
	}
	if selected {
		return cols, nil
	}
	var read int64
	if s, ok := cp.Extra[extraColumnsSeen]; ok {
		if err := json.Unmarshal([]byte(s), &cols); err != nil {
			return nil, fmt.Errorf("checkpoint: bad %s: %w", extraColumnsSeen, err)
		}
		read, _ = strconv.ParseInt(cp.Extra[extraColumnsRead], 10, 64)
	}
	c, err := openScan(q, plan, cp.Extra[extraColumnsPass])
	if err != nil {
		return nil, err
	}
	m := newMeter(e, "export: pass 1 of 2 (columns)", -1, read, conn.retries)
	seen := map[string]bool{}
	for _, k := range cols {
		seen[k] = true
	}
	save := func() error {
		b, _ := json.Marshal(cols)
		sv.Extra[extraColumnsPass], sv.Extra[extraColumnsSeen] = c.Token(), string(b)
		sv.Extra[extraColumnsRead] = strconv.FormatInt(read, 10)
		return sv.save("", 0, false)
	}
	for ent, err2 := range c.All(ctx) {
		if err = err2; err != nil {
			break
		}
		for k := range ent.Properties {
			if !seen[k] {
				seen[k] = true
				cols = append(cols, k)
			}
		}
		read++
		m.add(1)
		if sv.due() {
			if err = save(); err != nil {
				break
			}
		}
	}
	m.finish()
	if err != nil {
		if serr := save(); serr != nil {
			fmt.Fprintf(e.stderr, "tablekit export: %v\n", serr)
		} else {
			sv.tellResume(e, err)
		}
		return nil, err
	}
	delete(sv.Extra, extraColumnsPass)
	delete(sv.Extra, extraColumnsSeen)
	delete(sv.Extra, extraColumnsRead)
	slices.Sort(cols)
	b, _ := json.Marshal(cols)
	sv.Extra[extraColumns] = string(b)
	if sv.file != nil {
		return cols, sv.save("", 0, false) // the first pass is done
	}
	return cols, nil
}
