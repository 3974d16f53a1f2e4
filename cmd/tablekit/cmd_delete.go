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
		run: runDelete,
	})
}

func runDelete(ctx context.Context, e *env, args []string) error {
	var sf scanFlags
	var yes bool
	var dry *dryRun
	conn, name, err := tableCommand(e, commands["delete"], args, func(fs *flag.FlagSet) {
		sf.register(fs)
		fs.BoolVar(&yes, "yes", false, "really delete")
		dry = registerDryRun(fs)
	})
	if err != nil {
		return err
	}
	if sf.filter == "" && sf.partition == "" && sf.prefix == "" {
		return usagef("say what to delete with --filter, --partition or --prefix (to empty the whole table, drop it)")
	}
	if err := dry.check(sf.ckpt); err != nil {
		return err
	}
	if !yes && !dry.on {
		return usagef("deleting is final: add --yes")
	}
	j, plan, err := sf.start(ctx, e, "delete", name, 0)
	if err != nil {
		return err
	}
	t, err := table.New[keyEntity](conn.svc, name)
	if err != nil {
		return err
	}
	src := &scanSource{conn.svc, &plan}
	var dst jobSink = &deleteSink{e: e, src: src, t: t, keepPosition: conn.svc.Backend() != table.CosmosDB,
		opts: &batch.WriteOptions{InFlight: plan.parallel, ContinueOnError: true, Retry: conn.policy, Progress: j.committed()}}
	if dry.on {
		start, count := dryDelete(src, t)
		dst = &dryRunSink{e: e, verb: "delete", d: dry, sent: &conn.retries.sent, start: start, count: count}
	}
	return (&jobRun{job: j, retries: conn.retries, what: "table " + name, src: src, dst: dst}).run(ctx)
}
