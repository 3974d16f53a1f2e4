package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tablekit/tablekit/query"
	"github.com/tablekit/tablekit/table"
)

func init() {
	register(&command{
		name: "export", args: "TABLE [-o FILE|-] [--format jsonl|csv] [--delimiter C] [--filter ODATA] [--partition PK] [--prefix P] [--select a,b] [--segment i/n] [--parallel N] [--checkpoint FILE]",
		summary: "write the entities to JSON Lines (exact EDM types) or Storage Explorer CSV, with a parallel scan",
		example: `tablekit export orders -o orders.jsonl --parallel 16 --checkpoint orders.ckpt
# interrupted, even by kill -9? the same command again completes orders.jsonl
tablekit export orders --select Name,Total -o orders.csv    # CSV, from the extension
tablekit export logs --filter "Level eq 'error'" | gzip > errors.jsonl.gz`,
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
	conn, name, err := tableCommand(e, commands["export"], args, func(fs *flag.FlagSet) {
		sf.register(fs)
		everyFlag(fs, &every)
		fs.StringVar(&out, "o", "-", "output file, - for stdout (--checkpoint needs a file)")
		ff.register(fs)
		fs.StringVar(&sel, "select", "", "only these properties, comma-separated (the keys and Timestamp always come)")
	})
	if err != nil {
		return err
	}
	format, delim, err := ff.resolve(out)
	if err != nil {
		return err
	}
	if sf.checkpoint != "" && out == "-" {
		return usagef("--checkpoint needs -o FILE: a resumed run truncates the file to the saved position")
	}
	var cols []string
	if sel != "" {
		for _, c := range strings.Split(sel, ",") {
			if c = strings.TrimSpace(c); c != "" && c != "PartitionKey" && c != "RowKey" && c != "Timestamp" {
				cols = append(cols, c)
			}
		}
	}
	plan, err := sf.plan("export", name)
	if err != nil {
		return err
	}
	plan.job += fmt.Sprintf(" format=%s select=%q", format, sel)
	if format == formatCSV && delim != ',' {
		plan.job += fmt.Sprintf(" delimiter=%q", string(delim))
	}
	t, err := table.New[table.Entity](conn.svc, name)
	if err != nil {
		return err
	}
	sv, cp, err := startCheckpoint(sf.checkpoint, plan.job)
	if err != nil {
		return err
	}
	sv.every = every
	if cp.Complete {
		fmt.Fprintf(e.stderr, "tablekit export: the checkpoint says this export is complete (%d entities)\n", cp.Done)
		return nil
	}
	q := query.New(t)
	if sel != "" {
		q = q.Select(cols...)
	}
	resumed := cp.Token != "" || cp.Done > 0
	if resumed && cp.Token == "" {
		// Every segment had finished; only the final save was missed.
		o, err := openOutput(out, e.stdout, cp.Extra)
		if err == nil {
			err = o.close()
		}
		if err == nil {
			err = sv.save("", cp.Done, true)
		}
		return err
	}
	if err := plan.discover(ctx, conn.svc, cp, sv); err != nil {
		return err
	}
	var resume map[string]string
	if resumed {
		resume = cp.Extra
	}
	tuneStreamGC() // for both passes of a CSV export
	w := &entityWriter{}
	if format == formatCSV {
		if cols, err = csvColumns(ctx, e, q, plan, conn, cp, sv, sel != "", cols); err != nil {
			return err
		}
		b, _ := json.Marshal(cols)
		sv.Extra[extraColumns] = string(b)
	}
	o, err := openOutput(out, e.stdout, resume)
	if err != nil {
		return err
	}
	if format == formatCSV {
		w.csv = newCSVWriter(o, delim, cols)
		w.csv.wrote = resumed // the header is in the file already
	} else {
		w.jsonl = o
	}
	c, err := openScan(q, plan, cp.Token)
	if err != nil {
		o.close()
		return err
	}
	m := newMeter(e, "export", -1, cp.Done, conn.retries)
	done := cp.Done
	// save flushes and syncs the output before the checkpoint names a
	// position after it: a crash then leaves at most a tail to truncate.
	save := func(complete bool) error {
		if err := w.flush(); err != nil {
			return err
		}
		n, err := o.sync()
		if err != nil {
			return err
		}
		m.bytes.Store(n)
		if sv.Extra == nil {
			sv.Extra = map[string]string{}
		}
		sv.Extra[extraBytes] = strconv.FormatInt(n, 10)
		return sv.save(c.Token(), done, complete)
	}
	for ent, err2 := range c.All(ctx) {
		if err = err2; err != nil {
			break
		}
		if err = w.write(ent); err != nil {
			break
		}
		done++
		m.add(1)
		if sv.due() {
			if err = save(false); err != nil {
				break
			}
		}
	}
	m.finish()
	if err != nil {
		if serr := save(false); serr != nil {
			fmt.Fprintf(e.stderr, "tablekit export: %v\n", serr)
		} else {
			sv.tellResume(e, err)
		}
		o.close()
		return err
	}
	if err := save(true); err != nil {
		return err
	}
	return o.close()
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
			return fmt.Errorf("%s/%s: %w (a property added since the first pass? export again)", ent.PartitionKey, ent.RowKey, err)
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
