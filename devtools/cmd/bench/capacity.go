package main

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"

	"github.com/tablekit/tablekit/batch"
	"github.com/tablekit/tablekit/devtools/workload"
	"github.com/tablekit/tablekit/query"
	"github.com/tablekit/tablekit/table"
)

// accountRate is the service's scalability target for one storage
// account: 20,000 entities per second.
const accountRate = 20_000

// runCapacity measures how many entities one client core handles when the
// service costs nothing: the bulk writer and the typed parallel scan, and
// the hand-written aztables code they are compared with on Azurite, over
// devtools/workload's in-process service, behind cfg.latency of added
// latency (a timer, no CPU). All the CPU of this process is then the
// client's, plus the in-process service reading each request and handing
// back a canned answer.
func (b *bench) runCapacity(ctx context.Context) error {
	cfg := b.cfg
	bulkItems := b.items[:min(cfg.capBulk, len(b.items))]
	pks := workload.PartitionKeys()[:cfg.capSegments]
	byKey := partitionPages(pks)
	wt, err := tkTable(b.direct, "capacity", &table.Options{Transport: &workload.Slow{Next: &workload.Service{}, Delay: cfg.latency}})
	if err != nil {
		return err
	}
	st, err := tkTable(b.direct, "capacity", &table.Options{Transport: &workload.Slow{Next: byKey, Delay: cfg.latency}})
	if err != nil {
		return err
	}
	pw, err := plainClient(b.direct, "capacity", &workload.Slow{Next: &workload.Service{}, Delay: cfg.latency})
	if err != nil {
		return err
	}
	ps, err := plainClient(b.direct, "capacity", &workload.Slow{Next: byKey, Delay: cfg.latency})
	if err != nil {
		return err
	}
	runs := []struct {
		key string
		run func(ctx context.Context) (int, error)
	}{
		{"cap/bulk", func(ctx context.Context) (int, error) {
			ops := make([]batch.Op[workload.Item], len(bulkItems))
			for i := range bulkItems {
				ops[i] = batch.Op[workload.Item]{Entity: bulkItems[i]}
			}
			sum, err := batch.Write(ctx, wt, ops, nil)
			return sum.Ops, err
		}},
		{"cap/plain-txn", func(ctx context.Context) (int, error) {
			return insertPlainTxn(ctx, pw, bulkItems, cfg.txnOps, cfg.txnWorkers)
		}},
		{"cap/scan", func(ctx context.Context) (int, error) {
			return scanTkParallel(ctx, query.New(st), pks, cfg.scanParallel)
		}},
		{"cap/plain-fan", func(ctx context.Context) (int, error) {
			return scanPlainFanOut(ctx, ps, pks, cfg.scanParallel)
		}},
	}
	want := map[string]int{
		"cap/bulk": len(bulkItems), "cap/plain-txn": len(bulkItems),
		"cap/scan": len(pks) * workload.PageSize, "cap/plain-fan": len(pks) * workload.PageSize,
	}
	for round := range cfg.rounds {
		for _, r := range runs {
			rctx, cancel := context.WithTimeout(ctx, cfg.scenarioTimeout)
			s, err := b.m.measure(rctx, r.run)
			cancel()
			if err == nil && s.n != want[r.key] {
				err = fmt.Errorf("%d entities, want %d", s.n, want[r.key])
			}
			if err != nil {
				return fmt.Errorf("%s round %d: %w", r.key, round+1, err)
			}
			s.srv = -1 // Azurite is not involved
			b.record(r.key, s)
		}
	}
	return nil
}

// perCore is entities per second per client core: entities over this
// process's CPU seconds, median over rounds.
func (b *bench) perCore(key string) float64 {
	return b.med(key, func(s sample) float64 {
		if s.cpu <= 0 {
			return math.NaN()
		}
		return float64(s.n) / s.cpu.Seconds()
	})
}

// capacityRows are the capacity scenarios: each of tablekit's with the
// hand-written code it is compared with on Azurite ("" for those).
func (b *bench) capacityRows() []struct{ key, label, plain string } {
	cfg := b.cfg
	return []struct{ key, label, plain string }{
		{"cap/bulk", "tablekit bulk writer (`batch.Write`, defaults: 4 transactions in flight)", "cap/plain-txn"},
		{"cap/plain-txn", fmt.Sprintf("hand-written aztables `SubmitTransaction` loop (%d ops, %d goroutines)", cfg.txnOps, cfg.txnWorkers), ""},
		{"cap/scan", fmt.Sprintf("tablekit typed parallel segmented query (%d segments of a 1,000-entity page, %d in flight)", cfg.capSegments, cfg.scanParallel), "cap/plain-fan"},
		{"cap/plain-fan", fmt.Sprintf("hand-written errgroup fan-out over plain aztables pagers (%d in flight)", cfg.scanParallel), ""},
	}
}

// capacityRatio is tablekit's entities per client core in scenario key
// over those of its hand-written counterpart plain (NaN when either was not
// measured).
func (b *bench) capacityRatio(key, plain string) float64 {
	if len(b.res[key]) == 0 || len(b.res[plain]) == 0 {
		return math.NaN()
	}
	return b.perCore(key) / b.perCore(plain)
}

func (b *bench) capacitySection() Section {
	cfg := b.cfg
	t := Table{
		Caption: fmt.Sprintf("In-process service, %s added to every request:", fmtDur(cfg.latency)),
		Header:  []string{"Scenario", "entities per round", "entities/s (median)", "client CPU µs/entity", "entities/s per client core", "per core vs hand-written", fmt.Sprintf("client cores for %s entities/s", fmtInt(accountRate))},
	}
	for _, r := range b.capacityRows() {
		ss := b.res[r.key]
		if len(ss) == 0 {
			continue
		}
		pc, vs := b.perCore(r.key), ""
		if r.plain != "" {
			if x := b.capacityRatio(r.key, r.plain); !math.IsNaN(x) {
				vs = fmtRatio(x)
			}
		}
		t.Rows = append(t.Rows, []string{r.label, fmtInt(ss[0].n), fmtNum(b.rate(r.key)), fmtNum(b.clientCPU(r.key)), fmtNum(pc), vs, fmtNum(accountRate / pc)})
	}
	text := []string{
		fmt.Sprintf("How much client CPU the library needs, with the server's cost taken out: the same code against devtools/workload's in-process service, which answers like the service (a 202 with one part per operation to a transaction; to the query of a partition, a page of 1,000 entities of it) without a network, behind %s of added latency (a timer: waiting costs no CPU). Entities per second per client core is the entities handled over this process's CPU time (all threads, garbage collector included; the in-process service's own small work of reading each request and handing back a canned answer is counted too, so these are lower bounds). The service's scalability target for one storage account is %s entities per second; the last column is how many client cores keep up with it.", fmtDur(cfg.latency), fmtInt(accountRate)),
		"The hand-written code is the same as in the Azurite sections, over the same in-process service: where the service is not the bottleneck (the real service spread over partitions, or a client with little CPU to spare), \"per core vs hand-written\" is how many times the entities per second the same client cores carry with tablekit.",
	}
	return Section{Title: "Client capacity: CPU per entity against a service that costs nothing", Text: text, Tables: []Table{t}}
}

// partitionPages is a service whose answer to a query of one partition is a
// page of 1,000 entities of that partition, in key order.
func partitionPages(pks []string) policy.Transporter {
	p := pagesByKey{}
	for _, pk := range pks {
		page := workload.Items(0, workload.PageSize)
		for i := range page {
			page[i].PartitionKey = pk
		}
		slices.SortFunc(page, func(x, y workload.Item) int { return strings.Compare(x.RowKey, y.RowKey) })
		p["'"+pk+"'"] = &workload.Service{Page: workload.PageBody(page)}
	}
	return p
}

type pagesByKey map[string]*workload.Service

func (p pagesByKey) Do(req *http.Request) (*http.Response, error) {
	f := req.URL.Query().Get("$filter")
	for quoted, svc := range p {
		if strings.Contains(f, quoted) {
			return svc.Do(req)
		}
	}
	return nil, fmt.Errorf("capacity: no page for filter %q", f)
}
