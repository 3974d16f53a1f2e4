package main

import (
	"context"
	"flag"

	"github.com/tablekit/tablekit/batch"
	"github.com/tablekit/tablekit/table"
)

func init() {
	register(&command{
		name: "delete", args: "TABLE (--filter ODATA | --partition PK | --prefix P) (--yes | --dry-run [--price P]) [--plan FILE --segment i/n] [--parallel N] [--checkpoint FILE]",
		summary: "delete the matching entities: a keys-only scan, then deletes in entity group transactions",
		example: `tablekit delete logs --filter "Timestamp lt datetime'2024-01-01T00:00:00Z'" --yes --checkpoint logs.ckpt
# interrupted? the same command again resumes from logs.ckpt
tablekit delete orders --partition alice --yes
tablekit delete orders --partition alice --prefix 2023- --yes    # her RowKeys starting with 2023-
# the whole table is cheaper to drop: tablekit drop logs --yes`,
		run: runJob(deleteJob),
	})
}

func deleteJob() *jobCommand {
	var yes bool
	var dry *dryRun
	return &jobCommand{name: "delete", args: 1, tables: 1, scan: true,
		flags: func(fs *flag.FlagSet, _ *jobInput) {
			fs.BoolVar(&yes, "yes", false, "really delete")
			dry = registerDryRun(fs)
		},
		check: func(in *jobInput) error {
			if in.sf.filter == "" && in.sf.partition == "" && in.sf.prefix == "" {
				return usagef("say what to delete with --filter, --partition or --prefix (to empty the whole table, drop it)")
			}
			if err := dry.check(in.sf.ckpt); err != nil {
				return err
			}
			if !yes && !dry.on {
				return usagef("deleting is final: add --yes")
			}
			return nil
		},
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
			var dst jobSink = &deleteSink{e: in.e, src: src, t: t, keepPosition: in.src.svc.Backend() != table.CosmosDB,
				opts: &batch.WriteOptions{InFlight: plan.parallel, ContinueOnError: true, Retry: in.src.policy, Progress: j.committed()}}
			if dry.on {
				start, count := dryDelete(src, t)
				dst = &dryRunSink{e: in.e, verb: "delete", d: dry, sent: &in.retries.sent, start: start, count: count}
			}
			return &jobRun{job: j, retries: in.retries, what: "table " + in.pos[0], src: src, dst: dst}, nil
		}}
}
