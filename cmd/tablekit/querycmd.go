package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/tablekit/tablekit/query"
	"github.com/tablekit/tablekit/table"
)

func init() {
	register(&command{
		name: "query", args: "TABLE [--filter ODATA] [--select a,b] [--top N] [--format jsonl|table|csv]",
		summary: "print the entities a filter matches: JSON lines, aligned columns for a terminal, or CSV",
		example: `tablekit query orders --filter "PartitionKey eq 'alice' and Total gt 10.0" --format table
tablekit query orders --select Total,Placed --top 5
tablekit query logs --filter "Level eq 'error'" --top 0 --format jsonl > errors.jsonl`,
		run: runQuery,
	})
}

// maxHeld bounds the entities the table and csv formats hold: both print
// their columns before the first row, so they read every row first.
const maxHeld = 10000

// maxCell is the widest cell of --format table; a longer value is cut
// with "…" (jsonl and csv print every value whole).
const maxCell = 60

func runQuery(ctx context.Context, e *env, args []string) error {
	var filter, sel, format string
	var top int
	conn, name, err := tableCommand(e, commands["query"], args, func(fs *flag.FlagSet) {
		fs.StringVar(&filter, "filter", "", "OData filter, e.g. \"PartitionKey eq 'alice'\"; default: every entity")
		fs.StringVar(&sel, "select", "", selectHelp)
		fs.IntVar(&top, "top", 1000, fmt.Sprintf("at most this many entities; 0: all (jsonl only: table and csv hold their rows, at most %d)", maxHeld))
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
	if format != formatJSONL && (top == 0 || top > maxHeld) {
		return usagef("--format %s holds its rows to print the columns first: --top 1 to %d (jsonl, or tablekit export, for more)", format, maxHeld)
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
	}
	var cols []string
	if sel != "" {
		cols = selectColumns(sel)
		q = q.Select(selectNames(cols)...)
	}
	if top > 0 {
		q = q.Limit(top)
	}
	if format == formatJSONL {
		var w lineWriter
		o, _ := openOutput("-", e.stdout, nil)
		for ent, err := range q.All(ctx) {
			if err != nil {
				o.close()
				return err
			}
			b, err := w.line(ent)
			if err != nil {
				o.close()
				return fmt.Errorf("%q, %q: %w", ent.PartitionKey, ent.RowKey, err)
			}
			o.Write(withETag(b, ent.ETag))
		}
		return o.close()
	}
	ents, err := query.Collect(q.All(ctx))
	if err != nil {
		return err
	}
	if sel == "" {
		seen := map[string]bool{}
		for _, ent := range ents {
			for k := range ent.Properties {
				if !seen[k] {
					seen[k] = true
					cols = append(cols, k)
				}
			}
		}
		slices.Sort(cols)
	}
	if format == formatCSV {
		w := newCSVWriter(e.stdout, ',', cols)
		for _, ent := range ents {
			r, err := entityRow(ent)
			if err == nil {
				err = w.Write(r)
			}
			if err != nil {
				return fmt.Errorf("%q, %q: %w", ent.PartitionKey, ent.RowKey, err)
			}
		}
		return w.Flush()
	}
	return printTable(e.stdout, cols, ents)
}

// printTable prints entities in aligned columns: the keys, Timestamp, then
// cols; a missing property is an empty cell.
func printTable(out io.Writer, cols []string, ents []table.Entity) error {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	row := append([]string{"PartitionKey", "RowKey", "Timestamp"}, cols...)
	fmt.Fprintln(tw, strings.Join(row, "\t"))
	for _, ent := range ents {
		row = append(row[:0], cell(ent.PartitionKey), cell(ent.RowKey), "")
		if !ent.Timestamp.IsZero() {
			row[2] = ent.Timestamp.UTC().Format(timestampLayout)
		}
		for _, c := range cols {
			s := ""
			if v, ok := ent.Properties[c]; ok {
				_, text, err := formatValue(v)
				if err != nil {
					return fmt.Errorf("%q, %q: %s: %w", ent.PartitionKey, ent.RowKey, c, err)
				}
				s = cell(text)
			}
			row = append(row, s)
		}
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	return tw.Flush()
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
