package main

import (
	"context"
	"flag"
	"fmt"
	"strconv"

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
		run: runJob(exportJob),
	})
}

// extraColumns keeps a CSV export's columns in its checkpoint: the header
// is written once, so a resumed run must not compute other columns.
const extraColumns = "csv-columns"

func exportJob() *jobCommand {
	var ff formatFlags
	var out, sel, format string
	var delim rune
	var limit int
	var ordered bool
	var cols []string
	return &jobCommand{name: "export", args: 1, tables: 1, scan: true, every: true,
		flags: func(fs *flag.FlagSet, _ *jobInput) {
			fs.StringVar(&out, "o", "-", "output file, - for stdout (--checkpoint needs a file)")
			ff.register(fs)
			fs.StringVar(&sel, "select", "", selectHelp)
			fs.IntVar(&limit, "limit", 0, "at most this many entities (per share with --segment); 0: all")
			fs.BoolVar(&ordered, "ordered", false, "write the entities in key order (PartitionKey, then RowKey), for files that diff: --parallel's segments are merged in key order")
		},
		check: func(in *jobInput) (err error) {
			if format, delim, err = ff.resolve(out); err != nil {
				return err
			}
			if in.sf.ckpt.path != "" && out == "-" {
				return usagef("--checkpoint needs -o FILE: a resumed run truncates the file to the saved position")
			}
			if limit < 0 {
				return usagef("--limit %d: want 0 (all) or more", limit)
			}
			cols, err = selectNames(sel)
			return err
		},
		build: func(ctx context.Context, in *jobInput) (*jobRun, error) {
			var delimID, limitID string
			if format == formatCSV && delim != ',' {
				delimID = string(delim)
			}
			if limit > 0 {
				limitID = strconv.Itoa(limit)
			}
			j, plan, err := in.startScan(ctx, jobField{"output", filePath(out)}, jobField{"format", fmt.Sprint(format)},
				jobField{"select", sel}, jobField{"delimiter", delimID}, jobField{"limit", limitID}, jobField{"ordered", strconv.FormatBool(ordered)})
			if err != nil {
				return nil, err
			}
			plan.ordered = ordered
			if limit > 0 && j.cp.Done >= int64(limit) && !j.cp.Complete {
				j.cp.Token, j.token = scanEnd, scanEnd // all the limit asks for was read
			}
			t, err := table.New[table.Entity](in.src.svc, in.pos[0])
			if err != nil {
				return nil, err
			}
			rt, err := table.New[table.RawEntity](in.src.svc, in.pos[0])
			if err != nil {
				return nil, err
			}
			q, rq := query.New(t), query.New(rt)
			if sel != "" {
				q, rq = q.Select(withTimestamp(cols)...), rq.Select(withTimestamp(cols)...)
			}
			src := &scanSource{in.src.svc, &plan}
			dst := &exportSink{e: in.e, src: src, conn: in.src, q: q, rq: rq, out: out, format: format, delim: delim, limit: limit, selected: sel != "", cols: cols}
			return &jobRun{job: j, retries: in.retries, what: "output " + out, src: src, dst: dst}, nil
		}}
}
