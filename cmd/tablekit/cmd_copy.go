package main

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/tablekit/tablekit/batch"
	"github.com/tablekit/tablekit/internal/wire"
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
		run: runCopy,
	})
}

func runCopy(ctx context.Context, e *env, args []string) error {
	c := commands["copy"]
	fs := newFlags(e, c)
	from, to := sourceFlags(), targetFlags()
	from.register(fs)
	to.register(fs)
	var sf scanFlags
	var every time.Duration
	var create bool
	sf.register(fs)
	everyFlag(fs, &every)
	fs.BoolVar(&create, "create", true, "create the target table if it does not exist")
	dry := registerDryRun(fs)
	pos, err := parse(fs, args, 2)
	if err != nil {
		return err
	}
	if err := dry.check(sf.ckpt); err != nil {
		return err
	}
	for _, n := range pos {
		if bad := wire.CheckTableName(n); bad != nil {
			return badTableName(n, bad)
		}
	}
	retries := new(retryCount)
	from.rate, to.rate = &sf.rate, &sf.rate
	sconn, err := from.open(e, retries)
	if err != nil {
		return err
	}
	dconn, err := to.open(e, retries)
	var account string // the target's, when it is another account
	if err == nil {
		account = dconn.svc.Endpoint()
	}
	if errors.Is(err, errNoTarget) {
		dconn, err = sconn, nil
		// Table names are case-insensitive: Events and events are one table.
		if strings.EqualFold(pos[0], pos[1]) {
			return usagef("copying %s onto itself: name another table or give --to-connection-string", pos[0])
		}
	}
	if err != nil {
		return err
	}
	j, plan, err := sf.start(ctx, e, "copy", pos[0], every, jobField{"target table", pos[1]}, jobField{"target account", account})
	if err != nil {
		return err
	}
	// Raw entities: the copy moves each entity's JSON from the page into
	// the $batch body without decoding its values.
	st, err := table.New[table.RawEntity](sconn.svc, pos[0])
	if err != nil {
		return err
	}
	dt, err := table.New[table.RawEntity](dconn.svc, pos[1])
	if err != nil {
		return err
	}
	src := &scanSource{sconn.svc, &plan}
	var dst jobSink = &copySink{src: src, st: st, dt: dt, create: create, svc: dconn.svc,
		w: &roundWriter{rt: dt, kind: batch.Upsert, mode: table.Replace,
			opts: &batch.WriteOptions{InFlight: plan.parallel, ContinueOnError: true, Retry: dconn.policy, Progress: j.committed()}}}
	if dry.on {
		start, count := dryCopy(src, st, dt)
		dst = &dryRunSink{e: e, verb: "copy", d: dry, sent: &retries.sent, start: start, count: count}
	}
	return (&jobRun{job: j, retries: retries, what: "target table " + pos[1], src: src, dst: dst}).run(ctx)
}
