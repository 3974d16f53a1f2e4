package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"time"

	"github.com/tablekit/tablekit/query"
	"github.com/tablekit/tablekit/table"
)

func init() {
	register(&command{
		name: "plan", args: "TABLE --shares N [--partition PK] [--prefix P] [-o FILE|-]",
		summary: "cut a table by its keys into N shares of about the same size, one per machine: --plan FILE --segment i/N",
		example: `tablekit plan events --shares 4 -o events.plan
# then, on machine i of 4 (the same file on every machine):
tablekit export events -o events-1.jsonl --plan events.plan --segment 1/4 --checkpoint e1.ckpt
# in a Kubernetes Indexed Job, whose pods are numbered from 0:
tablekit export events -o /data/events-$(JOB_COMPLETION_INDEX).jsonl --plan /plan/events.plan --segment env:JOB_COMPLETION_INDEX/4`,
		run: runPlan,
	})
}

func runPlan(ctx context.Context, e *env, args []string) error {
	var shares int
	var partition, prefix, out string
	conn, name, err := tableCommand(e, commands["plan"], args, func(fs *flag.FlagSet) {
		fs.IntVar(&shares, "shares", 0, fmt.Sprintf("the number of shares (machines), 1 to %d", query.MaxSplitParts))
		fs.StringVar(&partition, "partition", "", "only this PartitionKey: its RowKeys are cut")
		fs.StringVar(&prefix, "prefix", "", "only PartitionKeys starting with this (RowKeys with --partition)")
		fs.StringVar(&out, "o", "-", "the plan file to write, - for stdout")
	})
	if err != nil {
		return err
	}
	if shares < 1 || shares > query.MaxSplitParts {
		return usagef("--shares %d: want 1 to %d", shares, query.MaxSplitParts)
	}
	sc, err := scope(partition, prefix)
	if err != nil {
		return err
	}
	t, err := table.New[keyEntity](conn.svc, name)
	if err != nil {
		return err
	}
	sp, err := query.New(t).Where(sc).Split(ctx, shares, nil)
	if err != nil {
		return err
	}
	p := sharePlan{Version: planVersion, Table: name, Partition: partition, Prefix: prefix,
		Split: string(splitOf(partition)), Shares: shares, Bounds: sp.Bounds, Estimates: sp.Estimates,
		Exact: sp.Exact, Requests: sp.Requests, Created: time.Now().UTC()}
	// Fewer bounds than shares: the keys cannot be cut finer. The shares
	// after the last cut are left empty, so that every machine still has
	// one and they still tile the key space.
	empty := 0
	for len(p.Bounds) < shares-1 {
		last := scopeRange(prefix).Lo
		if len(p.Bounds) > 0 {
			last = p.Bounds[len(p.Bounds)-1]
		}
		p.Bounds = append(p.Bounds, last)
		if n := len(p.Estimates); n > 0 {
			p.Estimates = append(p.Estimates[:n-1], 0, p.Estimates[n-1])
		}
		empty++
	}
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if out == "-" {
		_, err = e.stdout.Write(b)
	} else {
		err = writeFileAtomic(out, b)
	}
	if err != nil {
		return err
	}
	how := "estimated"
	if p.Exact {
		how = "counted"
	}
	fmt.Fprintf(e.stderr, "tablekit plan: %s in %d shares by %s, from %d keys-only queries; entities %s per share: %v\n", name, shares, p.Split, p.Requests, how, p.Estimates)
	if empty > 0 {
		fmt.Fprintf(e.stderr, "tablekit plan: %d shares are empty: the keys cannot be cut finer (a partition is never split; --partition cuts one partition's RowKeys)\n", empty)
	}
	return nil
}
