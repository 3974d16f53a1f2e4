package main

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/tablekit/tablekit/query"
	"github.com/tablekit/tablekit/table"
)

func init() {
	register(&command{
		name: "count", args: "TABLE [--filter ODATA] [--partition PK] [--prefix P] [--segment i/n] [--parallel N] [--checkpoint FILE]",
		summary: "count entities with a keys-only parallel scan; the number goes to stdout",
		example: `tablekit count orders
tablekit count orders --partition alice
tablekit count logs --prefix 2024-05    # PartitionKeys starting with 2024-05
tablekit count events --filter "Level eq 'error'" --parallel 16
# four machines, one share each; the four numbers add up to the table's count:
tablekit count events --segment 1/4    # ... --segment 4/4 on the others`,
		run: runCount,
	})
}

func runCount(ctx context.Context, e *env, args []string) error {
	var sf scanFlags
	conn, name, err := tableCommand(e, commands["count"], args, sf.register)
	if err != nil {
		return err
	}
	plan, err := sf.plan("count", name)
	if err != nil {
		return err
	}
	t, err := table.New[keyEntity](conn.svc, name)
	if err != nil {
		return err
	}
	sv, cp, err := startCheckpoint(sf.checkpoint, plan.job)
	if err != nil {
		return err
	}
	if cp.Complete {
		fmt.Fprintf(e.stderr, "tablekit count: the checkpoint says this count is complete\n")
		_, err := fmt.Fprintln(e.stdout, cp.Done)
		return err
	}
	if err := plan.discover(ctx, conn.svc, cp, sv); err != nil {
		return err
	}
	c, err := openScan(query.New(t).Select(), plan, cp.Token)
	if err != nil {
		return err
	}
	m := newMeter(e, "count", -1, cp.Done, conn.retries)
	var n atomic.Int64
	n.Store(cp.Done)
	for _, err = range c.All(ctx) {
		if err != nil {
			break
		}
		m.add(1)
		if err = sv.maybe(c.Token(), n.Add(1)); err != nil {
			break
		}
	}
	m.finish()
	if err != nil {
		if serr := sv.save(c.Token(), n.Load(), false); serr != nil {
			fmt.Fprintf(e.stderr, "tablekit count: %v\n", serr)
			sv.file = nil
		}
		sv.tellResume(e, err)
		return err
	}
	if err := sv.save("", n.Load(), true); err != nil {
		return err
	}
	_, err = fmt.Fprintln(e.stdout, n.Load())
	return err
}
