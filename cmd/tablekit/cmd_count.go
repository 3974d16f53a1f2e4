package main

import (
	"context"

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
		run: runJob(countJob),
	})
}

func countJob() *jobCommand {
	return &jobCommand{name: "count", args: 1, tables: 1, scan: true,
		build: func(ctx context.Context, in *jobInput) (*jobRun, error) {
			j, plan, err := in.startScan(ctx)
			if err != nil {
				return nil, err
			}
			t, err := table.New[keyEntity](in.src.svc, in.pos[0])
			if err != nil {
				return nil, err
			}
			src := &scanSource{in.src.svc, &plan}
			dst := &tallySink[keyEntity]{src: src, q: query.New(t).Select(), each: func(keyEntity) error { return nil }, report: printDone(in.e)}
			return &jobRun{job: j, retries: in.retries, what: "table " + in.pos[0], src: src, dst: dst}, nil
		}}
}
