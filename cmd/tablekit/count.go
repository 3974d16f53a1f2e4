package main

import (
	"context"
	"fmt"

	"github.com/tablekit/tablekit/query"
	"github.com/tablekit/tablekit/table"
)

func init() {
	register(&command{
		name: "count", args: "TABLE [--filter ODATA] [--partition PK] [--prefix P] [--plan FILE --segment i/n] [--parallel N] [--checkpoint FILE]",
		summary: "count entities with a keys-only parallel scan; the number goes to stdout",
		example: `tablekit count orders
tablekit count orders --partition alice
tablekit count logs --prefix 2024-05    # PartitionKeys starting with 2024-05
tablekit count events --filter "Level eq 'error'" --parallel 16
# four machines, one share each; the four numbers add up to the table's count:
tablekit plan events --shares 4 -o events.plan
tablekit count events --plan events.plan --segment 1/4    # ... --segment 4/4 on the others`,
		run: runCount,
	})
}

func runCount(ctx context.Context, e *env, args []string) error {
	var sf scanFlags
	conn, name, err := tableCommand(e, commands["count"], args, sf.register)
	if err != nil {
		return err
	}
	j, plan, err := sf.start(ctx, e, "count", name, 0)
	if err != nil {
		return err
	}
	t, err := table.New[keyEntity](conn.svc, name)
	if err != nil {
		return err
	}
	if done, err := j.complete("table " + name); done {
		// The count its run found, as that run printed it.
		if _, werr := fmt.Fprintln(e.stdout, j.cp.Done); err == nil {
			err = werr
		}
		return err
	}
	if err := plan.discover(ctx, conn.svc, j.cp, j.sv); err != nil {
		return err
	}
	c, err := openScan(query.New(t).Select(), plan, j.cp.Token)
	if err != nil {
		return err
	}
	j.start(conn.retries)
	err = stream(ctx, j, c, func(keyEntity) error { return nil })
	if err := j.end(err); err != nil {
		return err
	}
	_, err = fmt.Fprintln(e.stdout, j.done)
	return err
}
