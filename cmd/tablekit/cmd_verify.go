package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"strings"

	"github.com/tablekit/tablekit/internal/wire"
	"github.com/tablekit/tablekit/table"
)

func init() {
	register(&command{
		name: "verify", args: "SRC_TABLE DST_TABLE|FILE|DEST [--at ID|TIME] [--to-connection-string CS] [--filter ODATA] [--partition PK] [--prefix P] [--plan FILE --segment i/n] [--parallel N] [--checkpoint FILE] [--show N]",
		summary: "compare two tables, a table and an export file, or a table and a backup's state (DEST: a directory or a blob container URL), ignoring Timestamp and ETag; exit status 0 only when they are equal",
		example: `tablekit verify orders orders2 --parallel 16
TABLEKIT_TARGET_CONNECTION_STRING='...' tablekit verify orders orders --checkpoint verify.ckpt
tablekit verify orders orders.jsonl        # DST with a / or a . is a file
tablekit verify orders /var/backups/orders --at 20261126T031500.123Z   # a directory is a backup store
tablekit verify events events --plan events.plan --segment 2/4 --to-connection-string '...'`,
		run: runJob(verifyJob),
	})
}

// verifyStats is what verify found, kept in the checkpoint so that a
// resumed run reports the whole comparison.
type verifyStats struct {
	Source, Target   int64
	Missing, Extra   int64 // in the source only; in the target only
	Changed, Retyped int64 // entities whose properties differ; of them, with a type changed
	First            []difference
}

// difference is one of the first differences, by key.
type difference struct {
	PK, RK, Kind, Detail string
}

const extraVerify = "verify-stats"

// isFile tells verify's DST file from a table name, which has neither a
// slash nor a dot.
func isFile(dst string) bool { return strings.ContainsAny(dst, "/.") }

func verifyJob() *jobCommand {
	var ff formatFlags
	var show int
	var bf backupFlags
	var bk, file bool
	var format string
	var delim rune
	return &jobCommand{name: "verify", args: 2, tables: 1, scan: true, target: true,
		flags: func(fs *flag.FlagSet, _ *jobInput) {
			ff.register(fs)
			bf.register(fs)
			fs.IntVar(&show, "show", 10, "print the first N differences by key")
		},
		check: func(in *jobInput) (err error) {
			dst, to := in.pos[1], in.to
			bk = isBackupDest(dst)
			file = !bk && isFile(dst)
			in.noTarget = bk || file
			if err := bf.check(bk, in.sf.filter, to.connString+to.accountURL); err != nil {
				return err
			}
			if !in.noTarget {
				if bad := wire.CheckTableName(dst); bad != nil {
					return usagef("%v (a file's name holds a / or a .)", badTableName(dst, bad))
				}
			}
			if show < 0 {
				return usagef("--show %d: want 0 or more", show)
			}
			if file {
				format, delim, err = checkVerifyFile(dst, &in.sf, to, &ff)
			}
			return err
		},
		build: func(ctx context.Context, in *jobInput) (*jobRun, error) {
			pos := in.pos
			if in.sameAccount && pos[0] == pos[1] {
				return nil, usagef("verifying %s against itself: name another table or give --to-connection-string", pos[0])
			}
			var state *backupState
			job := []jobField{{"target", pos[1]}}
			if bk {
				var err error
				if state, err = bf.open(ctx, in.e, in.src, pos); err != nil {
					return nil, err
				}
				job = append(job, jobField{"backup", state.info.ID})
			}
			j, plan, err := in.startScan(ctx, job...)
			if err != nil {
				return nil, err
			}
			srcOrdered := in.src.svc.Backend() != table.CosmosDB
			// A file is one sorted stream, the table's segments merged in key
			// order, or sorted when its backend has none; tables compare segment
			// by segment.
			plan.ordered = (file || bk) && srcOrdered
			ta := &tally{show: show}
			if s, ok := j.cp.Extra[extraVerify]; ok {
				if err := json.Unmarshal([]byte(s), &ta.vs); err != nil {
					return nil, fmt.Errorf("checkpoint: bad %s: %w", extraVerify, err)
				}
			}
			src := &scanSource{in.src.svc, &plan}
			dst := &verifySink{e: in.e, src: src, pos: pos, file: file, backup: state, format: format, delim: delim, partition: in.sf.partition,
				ta: ta, srcOrdered: srcOrdered, dconn: in.dst}
			return &jobRun{job: j, retries: in.retries, what: "target " + pos[1], src: src, dst: dst}, nil
		}}
}

// checkVerifyFile checks verify's flags with a file as its target, and
// the file, before any request; it returns the file's format.
func checkVerifyFile(path string, sf *scanFlags, to *endpointFlags, ff *formatFlags) (format string, delim rune, err error) {
	if sf.filter != "" {
		return "", 0, usagef("--filter cannot be applied to a file: compare a table with the file of an export made with the same --filter, without it here")
	}
	if to.connString != "" || to.accountURL != "" {
		return "", 0, usagef("%s is a file: --to-connection-string and --to-account-url are for a table", path)
	}
	if format, delim, err = ff.resolve(path); err != nil {
		return "", 0, err
	}
	in, err := openInput(path, nil, nil) // a missing or misnamed file before any request
	if err != nil {
		return "", 0, err
	}
	in.close()
	return format, delim, nil
}

// report prints the counts and the first differences; it is errDiffer
// unless the two sides are equal.
func report(e *env, pos []string, vs *verifyStats) error {
	w := e.stdout
	fmt.Fprintf(w, "source   %s: %d entities\n", pos[0], vs.Source)
	fmt.Fprintf(w, "target   %s: %d entities\n", pos[1], vs.Target)
	fmt.Fprintf(w, "missing  %d (in the source, not in the target)\n", vs.Missing)
	fmt.Fprintf(w, "extra    %d (in the target, not in the source)\n", vs.Extra)
	fmt.Fprintf(w, "changed  %d (of them %d with a property of another type)\n", vs.Changed, vs.Retyped)
	if len(vs.First) > 0 {
		fmt.Fprintf(w, "first differences:\n")
		for _, d := range vs.First {
			fmt.Fprintf(w, "%-8s %q %q%s\n", d.Kind, d.PK, d.RK, d.Detail)
		}
	}
	if vs.Missing+vs.Extra+vs.Changed == 0 {
		_, err := fmt.Fprintln(w, "equal")
		return err
	}
	return fmt.Errorf("%w: %d missing, %d extra, %d changed", errDiffer, vs.Missing, vs.Extra, vs.Changed)
}
