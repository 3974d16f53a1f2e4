package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/tablekit/tablekit/batch"
	"github.com/tablekit/tablekit/devtools/azurite"
	"github.com/tablekit/tablekit/devtools/faults"
	"github.com/tablekit/tablekit/devtools/workload"
	"github.com/tablekit/tablekit/retry"
	"github.com/tablekit/tablekit/table"
)

// busyRate is R, the entities a second the busy account of the throughput
// step accepts: the service's partition target, which Azurite on one core
// serves with room to spare, so the proxy's refusals are the only limit.
const busyRate = 2_000

// throughputRows are the throughput scenarios: the bulk writer against the
// busy account with the limiter off, adaptive with no cap, and capped at R/2.
var throughputRows = []struct {
	key, label string
	rate       *table.Rate
}{
	{"thr/off", "limiter off (`Options.Rate` nil)", nil},
	{"thr/adaptive", "adaptive, no cap (`&table.Rate{}`)", &table.Rate{}},
	{"thr/half", fmt.Sprintf("capped at R/2 (`EntitiesPerSecond: %d`)", busyRate/2), &table.Rate{EntitiesPerSecond: busyRate / 2}},
}

// runThroughput writes the bench's entities with batch.Write through a
// proxy that plays an account accepting busyRate entities a second and
// answering 503 ServerBusy beyond (faults.Capacity), once per scenario and
// round, and records the proxy's count of requests and throttled answers.
func (b *bench) runThroughput(ctx context.Context) error {
	px, err := faults.Start(strings.TrimSuffix(b.direct, "/"+azurite.Account))
	if err != nil {
		return err
	}
	defer px.Close()
	ops := make([]batch.Op[workload.Item], len(b.items))
	for i := range b.items {
		ops[i] = batch.Op[workload.Item]{Entity: b.items[i]}
	}
	// Enough attempts that the run with the limiter off finishes too.
	pol := &retry.Policy{MaxAttempts: 50}
	for round := range b.cfg.rounds {
		for _, r := range throughputRows {
			name := b.tableName("thr")
			if err := b.createTable(ctx, name); err != nil {
				return err
			}
			t, err := tkTable(px.Endpoint(azurite.Account), name, &table.Options{Rate: r.rate, Retry: pol})
			if err != nil {
				return err
			}
			px.SetCapacity(&faults.Capacity{EntitiesPerSecond: busyRate})
			rctx, cancel := context.WithTimeout(ctx, b.cfg.scenarioTimeout)
			s, err := b.m.measure(rctx, func(ctx context.Context) (int, error) {
				sum, err := batch.Write(ctx, t, ops, &batch.WriteOptions{Retry: pol})
				return sum.Ops, err
			})
			cancel()
			px.SetCapacity(nil)
			if err == nil && s.n != len(ops) {
				err = fmt.Errorf("%d entities, want %d", s.n, len(ops))
			}
			if err != nil {
				return fmt.Errorf("%s round %d: %w", r.key, round+1, err)
			}
			arr := px.Arrivals()
			s.reqs = len(arr)
			throttled := 0
			for _, a := range arr {
				if a.Throttled {
					throttled++
				}
			}
			b.record(r.key, s)
			b.throttled[r.key] = append(b.throttled[r.key], float64(throttled)/float64(max(1, len(arr))))
			if err := b.deleteTable(ctx, name); err != nil {
				return err
			}
		}
	}
	return b.runThroughputCopy(ctx)
}

// throughputSection reports each scenario's rate against R, its share of
// requests throttled and its time, medians over rounds.
func (b *bench) throughputSection() Section {
	t := Table{
		Caption: fmt.Sprintf("`batch.Write`, and `tablekit copy`, of %s entities through the proxy accepting R = %s entities/s:", fmtInt(len(b.items)), fmtInt(busyRate)),
		Header:  []string{"Limiter", "entities/s (median)", "of R", "requests", "throttled", "time", "target"},
	}
	targets := map[string]string{
		"thr/adaptive":      ">= 0.85 R, <= 5% throttled",
		"thr/half":          "R/2 ± 5%",
		"thr/copy-adaptive": ">= 0.85 R, <= 5% throttled",
		"thr/copy-half":     "R/2 ± 5%",
	}
	row := func(key, label string) {
		ss := b.res[key]
		if len(ss) == 0 {
			return
		}
		rate := b.rate(key)
		got := rate / busyRate
		if k := b.gaveUp[key]; k > 0 {
			label += fmt.Sprintf(": gave up, retries exhausted, in %d of %d rounds (entities/s counts what it stored)", k, len(ss))
		}
		t.Rows = append(t.Rows, []string{label, fmtNum(rate), fmtRatio(got), fmtInt(ss[0].reqs), pct(median(b.throttled[key])), fmtDur(ss[0].wall), targets[key]})
	}
	for _, r := range throughputRows {
		row(r.key, r.label)
	}
	for _, r := range throughputCopyRows {
		row(r.key, r.label)
	}
	text := []string{
		"A busy account, played by devtools/faults' capacity rule in front of Azurite: a token bucket of R entities a second (a transaction counts its operations) answers 503 ServerBusy beyond it, as the service does beyond its targets. With the limiter off, every transaction in flight meets the throttle and backs off on its own; with `table.Options.Rate`, the Service's limiter lowers the rate of every caller at once and raises it while answers are clean (docs/throughput.md). \"throttled\" is the share of the requests the proxy refused. The `tablekit copy` rows copy the same entities from one Azurite into a second one behind the proxy, the command run as a user runs it.",
	}
	return Section{Title: "Throughput against a busy account", Text: text, Tables: []Table{t}}
}
