package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/tablekit/tablekit/internal/wire"
	"github.com/tablekit/tablekit/query"
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
	src, dst := sourceFlags(), targetFlags()
	src.register(fs)
	dst.register(fs)
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
	if err := bf.check(bk, sf.filter, dst.connString+dst.accountURL); err != nil {
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
		if sf.filter != "" {
			return usagef("--filter cannot be applied to a file: compare a table with the file of an export made with the same --filter, without it here")
		}
		if dst.connString != "" || dst.accountURL != "" {
			return usagef("%s is a file: --to-connection-string and --to-account-url are for a table", pos[1])
		}
		if format, delim, err = ff.resolve(pos[1]); err != nil {
			return err
		}
		in, err := openInput(pos[1], nil, nil) // a missing or misnamed file before any request
		if err != nil {
			return err
		}
		in.close()
	}
	retries := new(retryCount)
	sconn, err := src.open(e, retries)
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
		dconn, err = dst.open(e, retries)
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
	if j.cp.Complete {
		// What its run found, as that run printed it.
		if err := report(e, pos, &ta.vs); err != nil && !errors.Is(err, errDiffer) {
			return err
		}
		return j.completed("target " + pos[1])
	}
	st, err := table.New[table.RawEntity](sconn.svc, pos[0])
	if err != nil {
		return err
	}
	dyn, err := table.New[table.Entity](sconn.svc, pos[0]) // decodes what differs
	if err != nil {
		return err
	}
	if err := plan.discover(ctx, sconn.svc, j.cp, j.sv); err != nil {
		return err
	}
	// The position is the last key compared in each segment (a file: in
	// the one stream), saved with the counts.
	nseg := len(plan.segs)
	if file || bk {
		nseg = 1
	}
	last := make([]segPos, nseg)
	if j.cp.Token != "" {
		if err := json.Unmarshal([]byte(j.cp.Token), &last); err != nil || len(last) != nseg {
			return fmt.Errorf("checkpoint: bad position %q", j.cp.Token)
		}
	}
	j.position = func() string {
		b, _ := json.Marshal(last)
		return string(b)
	}
	j.save = func(complete bool) error {
		if j.sv.Extra == nil {
			j.sv.Extra = map[string]string{}
		}
		b, _ := json.Marshal(&ta.vs)
		j.sv.Extra[extraVerify] = string(b)
		return j.sv.save(j.at(), j.done, complete)
	}
	// done moves segment i past key k with the counts: a run stopped
	// later resumes after k, each key counted once.
	done := func(i int, k *row) error {
		last[i].Key = &[2]string{k.PartitionKey, k.RowKey}
		j.done++
		j.m.add(1)
		return j.saveDue()
	}
	decode := func(r *row) (map[string]any, error) { return decodeRow(dyn, r) }
	j.start(retries)
	if bk {
		err = verifyAgainst(ctx, sideOf{st, srcOrdered}, plan, sf.partition, last[0].Key, ta, decode, func(k *row) error { return done(0, k) }, state.rows)
	} else if file {
		err = verifyFile(ctx, sideOf{st, srcOrdered}, dyn, plan, sf.partition, pos[1], format, delim, last[0].Key, ta, decode, func(k *row) error { return done(0, k) })
	} else {
		var dt *table.Table[table.RawEntity]
		if dt, err = table.New[table.RawEntity](dconn.svc, pos[1]); err == nil {
			err = verifySegments(ctx, sideOf{st, srcOrdered}, sideOf{dt, dconn.svc.Backend() != table.CosmosDB}, plan, last, ta, decode, done)
		}
	}
	if err := j.end(err); err != nil {
		return err
	}
	return report(e, pos, &ta.vs)
}

// segPos is how far verify got in one segment: the last key compared, or
// the whole segment.
type segPos struct {
	Key  *[2]string `json:"k,omitempty"`
	Done bool       `json:"done,omitempty"`
}

// after is the filter of the keys after k, nil for all.
func after(k *[2]string) query.Filter {
	if k == nil {
		return query.And()
	}
	return query.Or(query.PartitionKey.Gt(query.String(k[0])),
		query.And(query.Partition(k[0]), query.RowKey.Gt(query.String(k[1]))))
}

// verifySegments compares the two tables segment by segment, up to
// --parallel segments at once: each segment's two sides come in key order
// (a page read ahead on each) or are sorted (Cosmos DB), and are merged by
// key. The sorts at once share oneSort's memory.
func verifySegments(ctx context.Context, src, dst sideOf, plan scanPlan, last []segPos, ta *tally, decode func(*row) (map[string]any, error), done func(int, *row) error) error {
	mu := &ta.mu // the tally, the positions and the checkpoint
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(plan.parallel)
	sorts := 0
	for _, s := range []sideOf{src, dst} {
		if !s.ordered {
			sorts += plan.parallel
		}
	}
	lim := oneSort.share(max(sorts, 1))
	for i, seg := range plan.segs {
		if last[i].Done {
			continue
		}
		f := query.And(plan.filter, seg.Filter, after(last[i].Key))
		g.Go(func() error {
			err := compareStreams(src.rows(ctx, f, lim), dst.rows(ctx, f, lim), ta, mu, decode, func(k *row) error {
				return done(i, k)
			})
			if err == nil {
				mu.Lock()
				last[i].Done = true
				mu.Unlock()
			}
			return err
		})
	}
	return g.Wait()
}

// verifyFile compares the table's ordered scan with the file's entities,
// sorted.
func verifyFile(ctx context.Context, st sideOf, dyn *dynTable, plan scanPlan, partition, path, format string, delim rune, from *[2]string, ta *tally, decode func(*row) (map[string]any, error), done func(*row) error) error {
	return verifyAgainst(ctx, st, plan, partition, from, ta, decode, done, func(keep func(pk, rk string) bool, lim runLimits) iter.Seq2[row, error] {
		return func(yield func(row, error) bool) {
			for e, err := range sortedFile(dyn, path, format, delim, func(e *table.Entity) bool { return keep(e.PartitionKey, e.RowKey) }, lim) {
				if !yield(row{PartitionKey: e.PartitionKey, RowKey: e.RowKey, props: e.Properties}, err) || err != nil {
					return
				}
			}
		}
	})
}

// verifyAgainst compares the table's ordered scan with one stream of
// entities in no key order (a file, a backup), which target sorts within
// lim after keeping those in the scan's scope, after from.
func verifyAgainst(ctx context.Context, st sideOf, plan scanPlan, partition string, from *[2]string, ta *tally, decode func(*row) (map[string]any, error), done func(*row) error,
	target func(keep func(pk, rk string) bool, lim runLimits) iter.Seq2[row, error]) error {
	plan.filter = query.And(plan.filter, after(from))
	cur, err := openScan(query.New(st.t), plan, "")
	if err != nil {
		return err
	}
	var src iter.Seq2[row, error] = func(yield func(row, error) bool) {
		for e, err := range cur.All(ctx) {
			if !yield(rawRow(e), err) || err != nil {
				return
			}
		}
	}
	lim := oneSort
	if !st.ordered {
		lim = oneSort.share(2) // the table's sort and the target's
		src = rowSpill.sorted(src, lim)
	}
	keep := func(pk, rk string) bool {
		k := pk
		if partition != "" {
			if pk != partition {
				return false
			}
			k = rk
		}
		return plan.share.Contains(k) && (from == nil || compareKeyStrings(pk, rk, from[0], from[1]) > 0)
	}
	return compareStreams(src, target(keep, lim), ta, nil, decode, done)
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
