package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/tablekit/tablekit/internal/codec"
	"github.com/tablekit/tablekit/query"
	"github.com/tablekit/tablekit/table"
)

// exportSink writes a scan's entities to a file (or stdout) in JSON Lines
// or CSV. JSON Lines are written from raw entities: each line is the
// entity's JSON as the read checked it (table.RawEntity.AppendJSON), with
// no map built and encoded again per entity; CSV needs each value's type
// and text, so it reads table.Entity.
type exportSink struct {
	e        *env
	src      *scanSource
	conn     *connection
	q        query.Query[table.Entity]    // CSV's
	rq       query.Query[table.RawEntity] // JSON Lines'
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
	rcur   *query.ParallelCursor[table.RawEntity]
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
	gcExport.apply() // for both passes of a CSV export
	if s.format == formatCSV {
		if s.cols, err = csvColumns(ctx, s.e, s.q, *s.src.plan, s.conn, j.cp, j.sv, s.selected, s.cols); err != nil {
			return err
		}
		b, _ := json.Marshal(s.cols)
		j.sv.Extra[extraColumns] = string(b)
		s.w.csv = newCSVWriter(s.o, s.delim, s.cols)
		s.w.csv.wrote = s.resume != nil // the header is in the file already
		q := s.q
		if s.limit > 0 {
			// After the CSV columns' pass, which reads the whole scan: a
			// limit without --ordered picks no set entities.
			q = q.Limit(s.limit - int(j.done))
		}
		s.cur, err = scan(s.src, q, j)
		return err
	}
	s.w.jsonl = s.o
	q := s.rq
	if s.limit > 0 {
		q = q.Limit(s.limit - int(j.done))
	}
	s.rcur, err = scan(s.src, q, j)
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
	var err error
	if s.rcur != nil {
		err = stream(ctx, j, s.rcur, s.w.writeRaw)
	} else {
		err = stream(ctx, j, s.cur, s.w.write)
	}
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

// entityWriter writes entities in the chosen format: CSV rows, or JSON
// lines of raw entities built in the output's buffer.
type entityWriter struct {
	jsonl *output
	csv   *csvWriter
}

func (w *entityWriter) write(ent table.Entity) error {
	r, err := entityRow(ent)
	if err != nil {
		return fmt.Errorf("%s/%s: %w", ent.PartitionKey, ent.RowKey, err)
	}
	if err := w.csv.Write(r); err != nil {
		return fmt.Errorf("%s/%s: %w (a property added since the first pass? export again with --restart)", ent.PartitionKey, ent.RowKey, err)
	}
	return nil
}

// writeRaw writes ent's line: its JSON as the scan read and checked it.
// The line is a copy, and nothing else holds ent's properties (stream
// hands each entity out once; the scan keeps only its keys), so their
// buffer goes back for the scan's next reads: the export's heap stays the
// size of its read-ahead, however large the table.
func (w *entityWriter) writeRaw(ent table.RawEntity) error {
	err := w.jsonl.appendLine(ent.AppendJSON)
	codec.ReleaseRawProps(ent.Properties)
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
