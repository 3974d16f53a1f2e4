package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"strings"

	"github.com/tablekit/tablekit/internal/wire"
	"github.com/tablekit/tablekit/query"
	"github.com/tablekit/tablekit/table"
)

func init() {
	register(&command{
		name: "verify", args: "SRC_TABLE DST_TABLE|FILE [--to-connection-string CS] [--filter ODATA] [--partition PK] [--prefix P] [--plan FILE --segment i/n] [--parallel N] [--checkpoint FILE] [--show N]",
		summary: "compare two tables, or a table and an export file, ignoring Timestamp and ETag; exit status 0 only when they are equal",
		example: `tablekit verify orders orders2 --parallel 16
TABLEKIT_TARGET_CONNECTION_STRING='...' tablekit verify orders orders --checkpoint verify.ckpt
tablekit verify orders orders.jsonl        # DST with a / or a . is a file
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
	First            []string
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
	sf.register(fs)
	ff.register(fs)
	fs.IntVar(&show, "show", 10, "print the first N differences by key")
	pos, err := parse(fs, args, 2)
	if err != nil {
		return err
	}
	if bad := wire.CheckTableName(pos[0]); bad != nil {
		return &usageError{"table name " + bad.String()}
	}
	file := isFile(pos[1])
	if !file {
		if bad := wire.CheckTableName(pos[1]); bad != nil {
			return &usageError{"table name " + bad.String() + " (a file's name holds a / or a .)"}
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
	}
	retries := new(retryCount)
	sconn, err := src.open(e, retries)
	if err != nil {
		return err
	}
	var dconn *connection
	if !file {
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
	j, plan, err := sf.start(e, "verify", pos[0], fmt.Sprintf(" to=%s", pos[1]), 0)
	if err != nil {
		return err
	}
	plan.ordered = true
	st, err := table.New[table.Entity](sconn.svc, pos[0])
	if err != nil {
		return err
	}
	var vs verifyStats
	if s, ok := j.cp.Extra[extraVerify]; ok {
		if err := json.Unmarshal([]byte(s), &vs); err != nil {
			return fmt.Errorf("checkpoint: bad %s: %w", extraVerify, err)
		}
	}
	if j.cp.Complete {
		fmt.Fprintf(e.stderr, "tablekit verify: the checkpoint says this verify is complete\n")
		return report(e, pos, &vs)
	}
	if err := plan.discover(ctx, sconn.svc, j.cp, j.sv); err != nil {
		return err
	}
	var after *table.Entity // the last key compared, on a resumed run
	if j.cp.Token != "" {
		var k [2]string
		if err := json.Unmarshal([]byte(j.cp.Token), &k); err != nil {
			return fmt.Errorf("checkpoint: bad position %q", j.cp.Token)
		}
		after = &table.Entity{PartitionKey: k[0], RowKey: k[1]}
		plan.filter = query.And(plan.filter, query.Or(
			query.PartitionKey.Gt(query.String(k[0])),
			query.And(query.Partition(k[0]), query.RowKey.Gt(query.String(k[1])))))
	}
	scur, err := openScan(query.New(st), plan, "")
	if err != nil {
		return err
	}
	var dseq iter.Seq2[table.Entity, error]
	if file {
		keep := func(ent *table.Entity) bool {
			k := ent.PartitionKey
			if sf.partition != "" {
				if ent.PartitionKey != sf.partition {
					return false
				}
				k = ent.RowKey
			}
			return plan.share.Contains(k) && (after == nil || compareKeys(ent, after) > 0)
		}
		dseq = sortedFile(st, pos[1], format, delim, keep)
	} else {
		dt, err := table.New[table.Entity](dconn.svc, pos[1])
		if err != nil {
			return err
		}
		dcur, err := openScan(query.New(dt), plan, "")
		if err != nil {
			return err
		}
		dseq = dcur.All(ctx)
	}
	last := after
	j.position = func() string {
		if last == nil {
			return ""
		}
		b, _ := json.Marshal([2]string{last.PartitionKey, last.RowKey})
		return string(b)
	}
	j.save = func(complete bool) error {
		if j.sv.Extra == nil {
			j.sv.Extra = map[string]string{}
		}
		b, _ := json.Marshal(&vs)
		j.sv.Extra[extraVerify] = string(b)
		return j.sv.save(j.at(), j.done, complete)
	}
	j.start(retries)
	err = compareStreams(scur.All(ctx), dseq, &vs, show, func(k *table.Entity) error {
		last = k
		j.done++
		j.m.add(1)
		return j.saveDue()
	})
	if err := j.end(err); err != nil {
		return err
	}
	return report(e, pos, &vs)
}

// compareStreams merges two streams in key order and counts what differs;
// done is called after each key, when everything up to it is compared.
func compareStreams(src, dst iter.Seq2[table.Entity, error], vs *verifyStats, show int, done func(*table.Entity) error) error {
	nextS, stopS := iter.Pull2(src)
	defer stopS()
	nextD, stopD := iter.Pull2(dst)
	defer stopD()
	pull := func(next func() (table.Entity, error, bool), side string, prev *table.Entity) (*table.Entity, error) {
		e, err, ok := next()
		if !ok {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", side, err)
		}
		if prev != nil && compareKeys(prev, &e) >= 0 {
			return nil, fmt.Errorf("%s: (%q, %q) came after (%q, %q): not in key order", side, e.PartitionKey, e.RowKey, prev.PartitionKey, prev.RowKey)
		}
		return &e, nil
	}
	note := func(kind string, k *table.Entity, detail string) {
		if len(vs.First) < show {
			vs.First = append(vs.First, fmt.Sprintf("%-8s %q %q%s", kind, k.PartitionKey, k.RowKey, detail))
		}
	}
	a, err := pull(nextS, "source", nil)
	if err != nil {
		return err
	}
	b, err := pull(nextD, "target", nil)
	if err != nil {
		return err
	}
	for a != nil || b != nil {
		c := 0
		switch {
		case a == nil:
			c = 1
		case b == nil:
			c = -1
		default:
			c = compareKeys(a, b)
		}
		var k *table.Entity
		switch {
		case c < 0:
			vs.Source++
			vs.Missing++
			note("missing", a, "")
			k = a
		case c > 0:
			vs.Target++
			vs.Extra++
			note("extra", b, "")
			k = b
		default:
			vs.Source++
			vs.Target++
			if ds := diffProps(a.Properties, b.Properties); len(ds) > 0 {
				vs.Changed++
				kind := "changed"
				for _, d := range ds {
					if d.typeChanged() {
						kind = "type"
						vs.Retyped++
						break
					}
				}
				var sb strings.Builder
				for _, d := range ds {
					sb.WriteString("  ")
					sb.WriteString(d.String())
				}
				note(kind, a, sb.String())
			}
			k = a
		}
		// The counts and the position move together: a run stopped while
		// pulling the next entity resumes after k, counted once.
		if err := done(k); err != nil {
			return err
		}
		if c <= 0 {
			if a, err = pull(nextS, "source", k); err != nil {
				return err
			}
		}
		if c >= 0 {
			if b, err = pull(nextD, "target", k); err != nil {
				return err
			}
		}
	}
	return nil
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
		for _, l := range vs.First {
			fmt.Fprintln(w, l)
		}
	}
	if vs.Missing+vs.Extra+vs.Changed == 0 {
		_, err := fmt.Fprintln(w, "equal")
		return err
	}
	return fmt.Errorf("%w: %d missing, %d extra, %d changed", errDiffer, vs.Missing, vs.Extra, vs.Changed)
}
