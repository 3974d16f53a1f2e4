package main

import (
	"context"
	"flag"
	"strings"

	"github.com/tablekit/tablekit/batch"
	"github.com/tablekit/tablekit/table"
)

func init() {
	register(&command{
		name: "copy", args: "SRC_TABLE DST_TABLE [--to-connection-string CS] [--filter ODATA] [--partition PK] [--prefix P] [--plan FILE --segment i/n] [--parallel N] [--checkpoint FILE] [--dry-run [--price P]]",
		summary: "copy entities to another table, in this account or another, without holding the table in memory",
		example: `tablekit copy orders orders2 --parallel 16 --checkpoint copy.ckpt
# interrupted, even by kill -9? the same command again completes the copy
TABLEKIT_TARGET_CONNECTION_STRING='...' tablekit copy orders orders --filter "Year eq 2024"
tablekit copy events events2024 --prefix 2024-`,
		run: runJob(copyJob),
	})
}

func copyJob() *jobCommand {
	var create bool
	var dry *dryRun
	return &jobCommand{name: "copy", args: 2, tables: 2, scan: true, every: true, target: true, writeCap: true,
		flags: func(fs *flag.FlagSet, _ *jobInput) {
			fs.BoolVar(&create, "create", true, "create the target table if it does not exist")
			dry = registerDryRun(fs)
		},
		check: func(in *jobInput) error { return dry.check(in.sf.ckpt) },
		build: func(ctx context.Context, in *jobInput) (*jobRun, error) {
			var account string // the target's, when it is another account
			if !in.sameAccount {
				account = in.dst.svc.Endpoint()
			} else if strings.EqualFold(in.pos[0], in.pos[1]) {
				// Table names are case-insensitive: Events and events are one table.
				return nil, usagef("copying %s onto itself: name another table or give --to-connection-string", in.pos[0])
			}
			j, plan, err := in.startScan(ctx, jobField{"target table", in.pos[1]}, jobField{"target account", account})
			if err != nil {
				return nil, err
			}
			// Raw entities: the copy moves each entity's JSON from the page into
			// the $batch body without decoding its values.
			st, err := table.New[table.RawEntity](in.src.svc, in.pos[0])
			if err != nil {
				return nil, err
			}
			dt, err := table.New[table.RawEntity](in.dst.svc, in.pos[1])
			if err != nil {
				return nil, err
			}
			src := &scanSource{in.src.svc, &plan}
			var dst jobSink = &copySink{src: src, st: st, dt: dt, create: create, svc: in.dst.svc,
				w: &roundWriter{rt: dt, kind: batch.Upsert, mode: table.Replace,
					opts: &batch.WriteOptions{InFlight: plan.parallel, ContinueOnError: true, Retry: in.dst.policy, Progress: j.committed()}}}
			if dry.on {
				start, count := dryCopy(src, st, dt)
				dst = &dryRunSink{e: in.e, verb: "copy", d: dry, sent: &in.retries.sent, start: start, count: count}
			}
			return &jobRun{job: j, retries: in.retries, what: "target table " + in.pos[1], src: src, dst: dst}, nil
		}}
}
