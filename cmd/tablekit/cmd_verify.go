package main

import (
	"context"
	"encoding/json"
	"errors"
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
		run: runVerify,
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

func runVerify(ctx context.Context, e *env, args []string) error {
	c := commands["verify"]
	fs := newFlags(e, c)
	from, to := sourceFlags(), targetFlags()
	from.register(fs)
	to.register(fs)
	var sf scanFlags
	var ff formatFlags
	var show int
	var bf backupFlags
	sf.register(fs)
	ff.register(fs)
	bf.register(fs)
	fs.IntVar(&show, "show", 10, "print the first N differences by key")
	pos, err := parse(fs, args, 2)
	if err != nil {
		return err
	}
	if bad := wire.CheckTableName(pos[0]); bad != nil {
		return badTableName(pos[0], bad)
	}
	bk := isBackupDest(pos[1])
	file := !bk && isFile(pos[1])
	if err := bf.check(bk, sf.filter, to.connString+to.accountURL); err != nil {
		return err
	}
	if !file && !bk {
		if bad := wire.CheckTableName(pos[1]); bad != nil {
			return usagef("%v (a file's name holds a / or a .)", badTableName(pos[1], bad))
		}
	}
	if show < 0 {
		return usagef("--show %d: want 0 or more", show)
	}
	var format string
	var delim rune
	if file {
		if format, delim, err = checkVerifyFile(pos[1], &sf, to, &ff); err != nil {
			return err
		}
	}
	retries := new(retryCount)
	from.rate, to.rate = &sf.rate, &sf.rate
	sconn, err := from.open(e, retries)
	if err != nil {
		return err
	}
	dconn := sconn
	var state *backupState
	if bk {
		if state, err = bf.open(ctx, e, sconn, pos); err != nil {
			return err
		}
	} else if !file {
		dconn, err = to.open(e, retries)
		if errors.Is(err, errNoTarget) {
			dconn, err = sconn, nil
			if pos[0] == pos[1] {
				return usagef("verifying %s against itself: name another table or give --to-connection-string", pos[0])
			}
		}
		if err != nil {
			return err
		}
	}
	job := []jobField{{"target", pos[1]}}
	if bk {
		job = append(job, jobField{"backup", state.info.ID})
	}
	j, plan, err := sf.start(ctx, e, "verify", pos[0], 0, job...)
	if err != nil {
		return err
	}
	srcOrdered := sconn.svc.Backend() != table.CosmosDB
	// A file is one sorted stream, the table's segments merged in key
	// order, or sorted when its backend has none; tables compare segment
	// by segment.
	plan.ordered = (file || bk) && srcOrdered
	ta := &tally{show: show}
	if s, ok := j.cp.Extra[extraVerify]; ok {
		if err := json.Unmarshal([]byte(s), &ta.vs); err != nil {
			return fmt.Errorf("checkpoint: bad %s: %w", extraVerify, err)
		}
	}
	src := &scanSource{sconn.svc, &plan}
	dst := &verifySink{e: e, src: src, pos: pos, file: file, backup: state, format: format, delim: delim, partition: sf.partition,
		ta: ta, srcOrdered: srcOrdered, dconn: dconn}
	return (&jobRun{job: j, retries: retries, what: "target " + pos[1], src: src, dst: dst}).run(ctx)
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
