package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/tablekit/tablekit/batch"
	"github.com/tablekit/tablekit/devtools/azurite"
	"github.com/tablekit/tablekit/devtools/faults"
	"github.com/tablekit/tablekit/devtools/workload"
)

// throughputCopyRows are the command's throughput scenarios: tablekit copy
// into a busy account with its default (adaptive), with --rate -1 (off)
// and with --rate R/2.
// With the limiter off, the copy may run out of retries (the command's
// retry policy is the library's default): that is a result, recorded with
// the entities it stored, not a failure of the bench.
var throughputCopyRows = []struct {
	key, label string
	args       []string
	mayGiveUp  bool
}{
	{"thr/copy-adaptive", "`tablekit copy`, default (adaptive)", nil, false},
	{"thr/copy-off", "`tablekit copy --rate -1` (off)", []string{"--rate", "-1"}, true},
	{"thr/copy-half", fmt.Sprintf("`tablekit copy --rate %d` (R/2)", busyRate/2), []string{"--rate", fmt.Sprint(busyRate / 2)}, false},
}

// runThroughputCopy copies a table of the bench's entities from this
// account into a second Azurite behind the proxy's capacity rule, as the
// command's user runs it, once per scenario and round.
func (b *bench) runThroughputCopy(ctx context.Context) error {
	dir, err := os.MkdirTemp("", "tablekit-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin, err := buildTool(ctx, dir)
	if err != nil {
		return err
	}
	src := b.tableName("thrsrc")
	if err := b.createTable(ctx, src); err != nil {
		return err
	}
	defer func() { _ = b.deleteTable(context.WithoutCancel(ctx), src) }()
	st, err := tkTable(b.direct, src, nil)
	if err != nil {
		return err
	}
	ops := make([]batch.Op[workload.Item], len(b.items))
	for i := range b.items {
		ops[i] = batch.Op[workload.Item]{Entity: b.items[i]}
	}
	if _, err := batch.Write(ctx, st, ops, nil); err != nil {
		return fmt.Errorf("loading the copy's source: %w", err)
	}
	tgt, err := b.startTarget(ctx)
	if err != nil {
		return err
	}
	defer tgt.stop()
	px, err := faults.Start(strings.TrimSuffix(tgt.b.direct, "/"+azurite.Account))
	if err != nil {
		return err
	}
	defer px.Close()
	// The command sees the target through the proxy; tables are checked
	// and dropped directly.
	busy := &target{b: &bench{cfg: b.cfg, direct: px.Endpoint(azurite.Account), log: b.log}, cpu: tgt.cpu, stop: func() {}}
	n := len(b.items)
	for round := range b.cfg.rounds {
		for _, r := range throughputCopyRows {
			dst := b.tableName("thr")
			px.SetCapacity(&faults.Capacity{EntitiesPerSecond: busyRate})
			rctx, cancel := context.WithTimeout(ctx, b.cfg.scenarioTimeout)
			s, err := b.toolTo(rctx, busy, bin, n, append([]string{"copy", src, dst}, r.args...)...)
			cancel()
			px.SetCapacity(nil)
			arr := px.Arrivals()
			if err != nil && r.mayGiveUp && ctx.Err() == nil {
				s.n, err = tgt.b.countTable(ctx, dst)
				b.gaveUp[r.key]++
				b.log("%s round %d: the copy gave up with %d of %d entities stored", r.key, round+1, s.n, n)
			} else if err == nil {
				err = tgt.b.verifyCount(ctx, dst, n)
			}
			if derr := tgt.b.deleteTable(context.WithoutCancel(ctx), dst); err == nil {
				err = derr
			}
			if err != nil {
				return fmt.Errorf("%s round %d: %w", r.key, round+1, err)
			}
			b.recordArrivals(r.key, s, arr)
		}
	}
	return nil
}
