package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/tablekit/tablekit/internal/wire"
	"github.com/tablekit/tablekit/query"
	"github.com/tablekit/tablekit/table"
)

func init() {
	register(&command{
		name: "query", args: "TABLE [--filter ODATA] [--select a,b] [--top N] [--marker M] [--format jsonl|table|csv]",
		summary: "print the entities a filter matches: JSON lines, aligned columns for a terminal, or CSV; --top pages, --marker goes on",
		example: `tablekit query orders --filter "PartitionKey eq 'alice' and Total gt 10.0" --format table
tablekit query orders --select Total,Placed --top 5
tablekit query orders --top 100 --marker M    # M: from the last line on stderr of the run before
tablekit query logs --filter "Level eq 'error'" --top 0 --format csv > errors.csv`,
		run: runQuery,
	})
}

// selectNames reads --select: the property names besides the keys and
// Timestamp, which always come; a name the service cannot hold is a usage
// error.
func selectNames(sel string) ([]string, error) {
	var names []string
	for _, c := range strings.Split(sel, ",") {
		c = strings.TrimSpace(c)
		switch {
		case c == "" || wire.IsSystemProperty(c) || slices.Contains(names, c):
			continue
		}
		if bad := wire.CheckPropertyName(c); bad != nil {
			return nil, usagef("--select %q: %s", c, bad)
		}
		names = append(names, c)
	}
	return names, nil
}

// withTimestamp is what a $select asks for: the service sends the keys
// whatever it names, Timestamp only when named.
func withTimestamp(names []string) []string {
	return append([]string{"Timestamp"}, names...)
}

// readAhead is how many rows the table and csv formats hold at a time: the
// first ones decide csv's columns (without --select), and each set of them
// is printed in aligned columns at once.
const readAhead = query.MaxPageSize

// maxCell is the widest cell of --format table; a longer value is cut
// with "…" (jsonl and csv print every value whole).
const maxCell = 60

func runQuery(ctx context.Context, e *env, args []string) error {
	var filter, sel, format, marker string
	var top int
	var sf scanFlags // its check of --filter
	conn, name, err := tableCommand(e, commands["query"], args, func(fs *flag.FlagSet) {
		fs.StringVar(&filter, "filter", "", "OData filter, e.g. \"PartitionKey eq 'alice'\"; default: every entity")
		sf.registerCheck(fs)
		fs.StringVar(&sel, "select", "", selectHelp)
		fs.IntVar(&top, "top", 1000, "at most this many entities; 0: all. When more may follow, the last line on stderr gives the --marker that goes on")
		fs.StringVar(&marker, "marker", "", "go on after the entities a run printed: the marker on its last line on stderr (the same table, --filter and --select)")
		fs.StringVar(&format, "format", formatJSONL, "jsonl (the service's JSON with annotations and ETag, as get prints; json is the same), table (aligned columns) or csv (Storage Explorer's)")
	})
	if err != nil {
		return err
	}
	if f := formatName(format); f != "" {
		format = f // json is jsonl, as for export and import
	}
	if format != formatJSONL && format != formatCSV && format != "table" {
		return usagef("--format %q: want jsonl, table or csv", format)
	}
	if top < 0 {
		return usagef("--top %d: want 0 (all) or more", top)
	}
	t, err := table.New[table.Entity](conn.svc, name)
	if err != nil {
		return err
	}
	q := query.New(t).PageSize(query.MaxPageSize)
	if filter != "" {
		q = q.Where(query.Raw(filter))
		if err := q.Filter().Err(); err != nil {
			return usagef("--filter: %v", err)
		}
		if sf.checkFilter {
			if err := checkFilter(ctx, conn.svc, name, query.And(), filter); err != nil {
				return err
			}
		}
	}
	var cols []string
	if sel != "" {
		if cols, err = selectNames(sel); err != nil {
			return err
		}
		q = q.Select(withTimestamp(cols)...)
	}
	if top > 0 {
		q = q.Limit(top)
	}
	if _, err := q.Resume(""); err != nil {
		return err
	}
	c, err := q.Resume(marker)
	if err != nil {
		return usagef("--marker: %v (a marker goes on only with the table, --filter and --select of the run that printed it)", err)
	}
	w := bufio.NewWriterSize(e.stdout, 64<<10)
	var out rowsOut
	hold := readAhead
	switch format {
	case formatJSONL:
		out, hold = &jsonlOut{o: w, w: lineWriter{t: t}}, 1
	case formatCSV:
		out = &csvOut{o: w, cols: cols, fixed: sel != ""}
	default:
		out = &tableOut{o: w, cols: cols, fixed: sel != ""}
	}
	qerr, werr := printRows(ctx, c, out, w, hold)
	if werr != nil {
		return werr // the output is not whole: no marker goes on from it
	}
	goOn(e, c)
	return qerr
}

// printRows prints the cursor's entities through out, hold at a time (each
// set is flushed to w, except single jsonl lines, which w gathers). qerr
// is the query's error, after the entities before it were printed; werr
// the output's.
func printRows(ctx context.Context, c *query.Cursor[table.Entity], out rowsOut, w *bufio.Writer, hold int) (qerr, werr error) {
	held := make([]table.Entity, 0, hold)
	for ent, err := range c.All(ctx) {
		if err != nil {
			qerr = err
			break
		}
		held = append(held, ent)
		if len(held) < hold {
			continue
		}
		if werr = out.rows(held); werr != nil {
			return qerr, werr
		}
		held = held[:0]
		if hold > 1 {
			if werr = w.Flush(); werr != nil {
				return qerr, werr
			}
		}
	}
	werr = out.rows(held)
	if werr == nil && qerr == nil {
		werr = out.close()
	}
	if err := w.Flush(); werr == nil {
		werr = err
	}
	return qerr, werr
}

// goOn ends a query that may have more with the line that says how to go
// on: the cursor's token, after the last entity printed.
func goOn(e *env, c *query.Cursor[table.Entity]) {
	if tok := c.Token(); tok != "" {
		fmt.Fprintf(e.stderr, "tablekit query: more entities may follow: go on with --marker %s\n", tok)
	}
}

// rowsOut prints entities in one of query's formats, as they come.
type rowsOut interface {
	rows(ents []table.Entity) error
	close() error
}

// jsonlOut prints get's lines.
type jsonlOut struct {
	o io.Writer
	w lineWriter
}

func (j *jsonlOut) rows(ents []table.Entity) error {
	for _, ent := range ents {
		b, err := j.w.line(ent)
		if err != nil {
			return fmt.Errorf("%q, %q: %w", ent.PartitionKey, ent.RowKey, err)
		}
		if _, err := j.o.Write(withETag(b, ent.ETag)); err != nil {
			return err
		}
	}
	return nil
}

func (j *jsonlOut) close() error { return nil }

// csvOut prints Storage Explorer's CSV. Its one header comes first, so its
// columns are --select's or those of the first rows read ahead; a
// property first seen later stops the output with an error that names it,
// rather than a row without it or a second header.
type csvOut struct {
	o     io.Writer
	cols  []string
	fixed bool
	w     *csvWriter
}

func (c *csvOut) rows(ents []table.Entity) error {
	if c.w == nil {
		if !c.fixed {
			c.cols = newColumns(nil, ents)
		}
		c.w = newCSVWriter(c.o, ',', c.cols)
	}
	for _, ent := range ents {
		r, err := entityRow(ent)
		if err != nil {
			return fmt.Errorf("%q, %q: %w", ent.PartitionKey, ent.RowKey, err)
		}
		for _, p := range r.Props {
			if !slices.Contains(c.cols, p.Name) {
				c.w.Flush()
				return fmt.Errorf("%q, %q: property %s is not among the CSV columns, which the first %d rows decided: give --select with every column, or use tablekit export (it reads the table twice to find every column)", ent.PartitionKey, ent.RowKey, p.Name, readAhead)
			}
		}
		if err := c.w.Write(r); err != nil {
			return err
		}
	}
	c.w.w.Flush()
	return c.w.w.Error()
}

func (c *csvOut) close() error {
	if c.w == nil {
		c.w = newCSVWriter(c.o, ',', c.cols)
	}
	return c.w.Flush()
}

// newColumns returns cols and, after them in name order, the properties of
// ents that cols lacks.
func newColumns(cols []string, ents []table.Entity) []string {
	var more []string
	for _, ent := range ents {
		for k := range ent.Properties {
			if !slices.Contains(cols, k) && !slices.Contains(more, k) {
				more = append(more, k)
			}
		}
	}
	slices.Sort(more)
	return append(cols, more...)
}

// tableOut prints aligned columns: the keys, Timestamp, then the
// properties; a missing property is an empty cell. It prints each set of
// rows read ahead as it comes, under a header; when a set needs a column
// more (a property first seen, added at the right) or a wider one, a
// blank line and a new header come first, so every row sits under a
// header it is aligned with.
type tableOut struct {
	o      io.Writer
	cols   []string
	fixed  bool
	widths []int // of the header's columns; nil before the first header
}

func (p *tableOut) rows(ents []table.Entity) error {
	if len(ents) == 0 && p.widths != nil {
		return nil
	}
	if !p.fixed {
		p.cols = newColumns(p.cols, ents)
	}
	head := append([]string{"PartitionKey", "RowKey", "Timestamp"}, p.cols...)
	widths := make([]int, len(head))
	for i, h := range head {
		widths[i] = utf8.RuneCountInString(h)
	}
	cells := make([][]string, len(ents))
	for j, ent := range ents {
		row := make([]string, len(head))
		row[0], row[1] = cell(ent.PartitionKey), cell(ent.RowKey)
		if !ent.Timestamp.IsZero() {
			row[2] = ent.Timestamp.UTC().Format(timestampLayout)
		}
		for i, c := range p.cols {
			if v, ok := ent.Properties[c]; ok {
				_, text, err := formatValue(v)
				if err != nil {
					return fmt.Errorf("%q, %q: %s: %w", ent.PartitionKey, ent.RowKey, c, err)
				}
				row[3+i] = cell(text)
			}
		}
		for i, s := range row {
			widths[i] = max(widths[i], utf8.RuneCountInString(s))
		}
		cells[j] = row
	}
	var b []byte
	if p.widths == nil || len(widths) > len(p.widths) || wider(widths, p.widths) {
		if p.widths != nil {
			b = append(b, '\n')
		}
		for i := range p.widths {
			widths[i] = max(widths[i], p.widths[i])
		}
		p.widths = widths
		b = appendAligned(b, head, p.widths)
	}
	for _, row := range cells {
		b = appendAligned(b, row, p.widths)
	}
	_, err := p.o.Write(b)
	return err
}

func (p *tableOut) close() error { return p.rows(nil) }

// wider reports whether a column of got is wider than the same of have.
func wider(got, have []int) bool {
	for i := range have {
		if got[i] > have[i] {
			return true
		}
	}
	return false
}

// appendAligned appends one line of cells padded to widths, two spaces
// apart; the cells after the last non-empty one are left out, and so no
// padding ends the line.
func appendAligned(b []byte, row []string, widths []int) []byte {
	last := len(row) - 1
	for last > 0 && row[last] == "" {
		last--
	}
	for i, s := range row[:last+1] {
		if i > 0 {
			b = append(b, "  "...)
		}
		b = append(b, s...)
		if i < last {
			for range widths[i] - utf8.RuneCountInString(s) {
				b = append(b, ' ')
			}
		}
	}
	return append(b, '\n')
}

// cell is a value as one line of at most maxCell characters: tabs,
// newlines and other control characters are escaped, as %q would.
func cell(s string) string {
	if strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		q := fmt.Sprintf("%q", s)
		s = q[1 : len(q)-1]
	}
	if utf8.RuneCountInString(s) > maxCell {
		r := []rune(s)
		s = string(r[:maxCell-1]) + "…"
	}
	return s
}
