package main

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

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
			b.recordArrivals(r.key, s, px.Arrivals())
			if err := b.deleteTable(ctx, name); err != nil {
				return err
			}
		}
	}
	return b.runThroughputCopy(ctx)
}

// recordArrivals records a round of a throughput scenario: its sample, the
// requests the proxy saw, the share it throttled and the rate of what it
// accepted.
func (b *bench) recordArrivals(key string, s sample, arr []faults.Arrival) {
	s.reqs = len(arr)
	throttled := 0
	for _, a := range arr {
		if a.Throttled {
			throttled++
		}
	}
	b.record(key, s)
	b.throttled[key] = append(b.throttled[key], float64(throttled)/float64(max(1, len(arr))))
	b.writeRate[key] = append(b.writeRate[key], acceptedRate(arr))
}

// acceptedRate is the entities a second the proxy accepted between the
// first accepted request and the last: the rate the account saw, without
// the run's start (process, checks, the first reads) and end. The first
// request's entities arrived at the span's start, so they are left out.
// NaN with fewer than two accepted requests.
func acceptedRate(arr []faults.Arrival) float64 {
	var first, last time.Duration
	n, seen := 0, 0
	for _, a := range arr {
		if a.Throttled {
			continue
		}
		if seen == 0 {
			first = a.At
		} else {
			n += a.Entities
		}
		last = a.At
		seen++
	}
	if seen < 2 || last <= first {
		return math.NaN()
	}
	return float64(n) / (last - first).Seconds()
}

// halfWithin is how close to R/2 a capped run keeps: ±5%.
const halfWithin = 0.05

// throughputTargets are the targets of the busy account: adaptive
// at least 0.85 R with at most 5% of requests throttled, and a cap of R/2
// kept within ±5% over the whole run (the command's too: from its start
// to its exit), for the bulk writer and the command alike. Each is judged
// under the busy rule.
func (b *bench) throughputTargets() []Target {
	var ts []Target
	for _, kt := range b.keyedThroughputTargets() {
		ts = append(ts, kt.Target)
	}
	return ts
}

// keyedTarget is a target and the scenario it judges.
type keyedTarget struct {
	key string
	Target
}

// targetCell is the throughput table's cell of a scenario's target: what
// is wanted and the outcome; empty for a scenario with none.
func targetCell(judged map[string]Target, key string) string {
	t, ok := judged[key]
	if !ok {
		return ""
	}
	return t.Want + ": " + t.Status.String()
}

func (b *bench) keyedThroughputTargets() []keyedTarget {
	var ts []keyedTarget
	adaptive := func(name, key string) {
		if len(b.res[key]) == 0 {
			return
		}
		rate, thr := b.rate(key)/busyRate, median(b.throttled[key])
		t := Target{Name: name, Want: ">= 0.85 R, <= 5% throttled", Got: fmt.Sprintf("%s R, %s throttled", fmtRatio(rate), pct(thr)), Status: Fail}
		if roundRatio(rate) >= 0.85 && thr <= 0.05 {
			t.Status = Pass
		} else {
			t.Why = fmt.Sprintf("%s entities/s over the run, %s of requests throttled, against R = %s.", fmtNum(b.rate(key)), pct(thr), fmtInt(busyRate))
		}
		ts = append(ts, keyedTarget{key, b.judge(t, key)})
	}
	half := func(name, key string) {
		if len(b.res[key]) == 0 {
			return
		}
		want := float64(busyRate / 2)
		run, writes := b.rate(key), median(b.writeRate[key])
		t := Target{Name: name, Want: fmt.Sprintf("%s ± %.0f%% over the run", fmtInt(busyRate/2), halfWithin*100),
			Got: fmt.Sprintf("%s/s over the run (%s/s between the first and last accepted write)", fmtNum(run), fmtNum(writes)), Status: Fail}
		if math.Abs(run-want) <= halfWithin*want {
			t.Status = Pass
		} else {
			t.Why = fmt.Sprintf("the run took %s for %s entities; the proxy accepted its writes at %s/s.", fmtDur(b.res[key][0].wall), fmtInt(b.res[key][0].n), fmtNum(writes))
		}
		ts = append(ts, keyedTarget{key, b.judge(t, key)})
	}
	adaptive("`batch.Write`, adaptive, against a busy account", "thr/adaptive")
	half(fmt.Sprintf("`batch.Write` capped at R/2 (%s/s)", fmtInt(busyRate/2)), "thr/half")
	adaptive("`tablekit copy`, default (adaptive), against a busy account", "thr/copy-adaptive")
	half(fmt.Sprintf("`tablekit copy --rate %d` (R/2)", busyRate/2), "thr/copy-half")
	return ts
}

// throughputSection reports each scenario's rate against R over the whole
// run and as the proxy accepted its writes, its share of requests
// throttled and its time, medians over rounds.
func (b *bench) throughputSection() Section {
	t := Table{
		Caption: fmt.Sprintf("`batch.Write`, and `tablekit copy`, of %s entities through the proxy accepting R = %s entities/s:", fmtInt(len(b.items)), fmtInt(busyRate)),
		Header:  []string{"Limiter", "entities/s, run (median)", "of R", "entities/s, writes", "requests", "throttled", "time", "target"},
	}
	judged := map[string]Target{}
	for _, kt := range b.keyedThroughputTargets() {
		judged[kt.key] = kt.Target
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
		t.Rows = append(t.Rows, []string{label, fmtNum(rate), fmtRatio(got), fmtNum(median(b.writeRate[key])), fmtInt(ss[0].reqs), pct(median(b.throttled[key])), fmtDur(ss[0].wall), targetCell(judged, key)})
	}
	for _, r := range throughputRows {
		row(r.key, r.label)
	}
	for _, r := range throughputCopyRows {
		row(r.key, r.label)
	}
	text := []string{
		"A busy account, played by devtools/faults' capacity rule in front of Azurite: a token bucket of R entities a second (a transaction counts its operations) answers 503 ServerBusy beyond it, as the service does beyond its targets. With the limiter off, every transaction in flight meets the throttle and backs off on its own; with `table.Options.Rate`, the Service's limiter lowers the rate of every caller at once and raises it while answers are clean (docs/throughput.md). \"throttled\" is the share of the requests the proxy refused. The `tablekit copy` rows copy the same entities from one Azurite into a second one behind the proxy, the command run as a user runs it.",
		"Two rates: \"run\" is the entities over the whole run (for the command, from its start to its exit: process start, the checks, the source's split and the first reads included); \"writes\" is what the proxy accepted from the first accepted request to the last, the rate the account saw. A cap of R/2 is judged on the whole run. The command's `--rate` caps its writes to the target account; the source's reads, paced by the writes, only back off if the source throttles.",
	}
	return Section{Title: "Throughput against a busy account", Text: text, Tables: []Table{t}}
}
