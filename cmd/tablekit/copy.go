package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tablekit/tablekit/batch"
	"github.com/tablekit/tablekit/internal/wire"
	"github.com/tablekit/tablekit/query"
	"github.com/tablekit/tablekit/table"
)

func init() {
	register(&command{
		name: "copy", args: "SRC_TABLE DST_TABLE [--to-connection-string CS] [--filter ODATA] [--partition PK] [--prefix P] [--plan FILE --segment i/n] [--parallel N] [--checkpoint FILE]",
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
	src, dst := sourceFlags(), targetFlags()
	src.register(fs)
	dst.register(fs)
	var sf scanFlags
	var every time.Duration
	var create bool
	sf.register(fs)
	everyFlag(fs, &every)
	fs.BoolVar(&create, "create", true, "create the target table if it does not exist")
	pos, err := parse(fs, args, 2)
	if err != nil {
		return err
	}
	for _, n := range pos {
		if bad := wire.CheckTableName(n); bad != nil {
			return &usageError{"table name " + bad.String()}
		}
	}
	retries := new(retryCount)
	src.rate, dst.rate = &sf.rate, &sf.rate
	sconn, err := src.open(e, retries)
	if err != nil {
		return err
	}
	dconn, err := dst.open(e, retries)
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
	j, plan, err := sf.start(e, "copy", pos[0], fmt.Sprintf(" to=%s", pos[1]), every)
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
	if done, err := j.complete(); done {
		return err
	}
	if err := plan.discover(ctx, sconn.svc, j.cp, j.sv); err != nil {
		return err
	}
	if create {
		if err := dconn.svc.CreateTable(ctx, dt.Name()); err != nil {
			return err
		}
	}
	plan.readers = copyReaders(plan.parallel)
	tuneStreamGC()
	cur, err := openScan(query.New(st), plan, j.cp.Token)
	if err != nil {
		return err
	}
	w := &roundWriter{rt: dt, kind: batch.Upsert, mode: table.Replace,
		opts: &batch.WriteOptions{InFlight: plan.parallel, ContinueOnError: true, Retry: dconn.policy}}
	j.start(retries)
	// Unbuffered: one round written, one being read, and no third waiting.
	err = pipe(ctx, 0, func(ctx context.Context, out chan<- round) error { return scanRounds(ctx, cur, out) },
		func(ctx context.Context, r round) error {
			stored, rejs, err := w.write(ctx, r.items)
			j.done += int64(stored)
			j.m.add(stored)
			if err != nil {
				return err
			}
			if len(rejs) > 0 {
				// The source holds it, so the target's refusal is not the
				// input's fault: stop before the checkpoint passes it.
				return fmt.Errorf("the target refused %d entities, first %s", len(rejs), rejs[0].Reason)
			}
			j.token = r.next
			return j.saveDue()
		})
	return j.end(err)
}

// copyReaders bounds the scan's requests in flight, and so what it reads
// ahead: a parallel scan holds about two pages of 1,000 per request in
// flight that the caller has not taken yet. With all 16 of
// --parallel 16 reading, the scan held up to 32,000 decoded entities ahead
// of the writer (which is slower than it), six rounds more than the two
// the copy means to hold: that, not the table, set the peak memory, and it
// rose with the table until the read-ahead was full. A few readers keep
// up with the writer; --parallel still sets the writes in flight and the
// segments (hence the checkpoint's token).
func copyReaders(parallel int) int {
	return min(parallel, maxCopyReaders)
}

const maxCopyReaders = 4

// scanRounds cuts the scan into rounds, each carrying the scan's token
// after its last entity: the checkpoint moves there once the round is
// written. At most two rounds are held (one written, one read), so memory
// does not grow with the table.
func scanRounds(ctx context.Context, cur *query.ParallelCursor[table.RawEntity], out chan<- round) error {
	defer close(out)
	var r round
	send := func() error {
		r.next = scanPosition(cur.Token())
		select {
		case out <- r:
			r = round{}
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	var n int64
	for ent, err := range cur.All(ctx) {
		if err != nil {
			return err
		}
		n++
		ent.Meta = table.Meta{}
		it := item{line: n, raw: ent, size: len(ent.PartitionKey) + len(ent.RowKey) + len(ent.Properties)}
		r.items = append(r.items, it)
		r.bytes += it.size
		if len(r.items) >= roundOps || r.bytes >= roundBytes {
			if err := send(); err != nil {
				return err
			}
		}
	}
	if len(r.items) > 0 {
		return send()
	}
	return nil
}
