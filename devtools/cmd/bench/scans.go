package main

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"golang.org/x/sync/errgroup"

	"github.com/tablekit/tablekit/devtools/workload"
	"github.com/tablekit/tablekit/query"
	"github.com/tablekit/tablekit/table"
)

// plainItem is how the plain scans decode: encoding/json into a struct. It
// is the cheapest decoding plain code gets, cheaper than aztables.EDMEntity
// (see the client-overhead section), so the scan baselines measure paging
// and parallelism, not a slow decoder.
type plainItem = workload.PlainItem

// sink keeps decoded values alive.
var sink atomic.Value

func decodePage(entities [][]byte) error {
	for _, e := range entities {
		var it plainItem
		if err := json.Unmarshal(e, &it); err != nil {
			return err
		}
		sink.Store(it.RowKey)
	}
	return nil
}

// scanPlainSeq is plain aztables code reading a table: one pager, page by
// page, decoding every entity.
func scanPlainSeq(ctx context.Context, c *aztables.Client, opts *aztables.ListEntitiesOptions) (int, error) {
	p := c.NewListEntitiesPager(opts)
	n := 0
	for p.More() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return n, err
		}
		if err := decodePage(page.Entities); err != nil {
			return n, err
		}
		n += len(page.Entities)
	}
	return n, nil
}

// scanPlainFanOut is the hand-written parallel read: one pager per
// partition, at most limit of them at a time (errgroup.SetLimit), decoding
// in the worker goroutines.
func scanPlainFanOut(ctx context.Context, c *aztables.Client, pks []string, limit int) (int, error) {
	var n atomic.Int64
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(limit)
	for _, pk := range pks {
		g.Go(func() error {
			f := "PartitionKey eq " + query.String(pk).String()
			p := c.NewListEntitiesPager(&aztables.ListEntitiesOptions{Filter: &f})
			for p.More() {
				page, err := p.NextPage(ctx)
				if err != nil {
					return err
				}
				if err := decodePage(page.Entities); err != nil {
					return err
				}
				n.Add(int64(len(page.Entities)))
			}
			return nil
		})
	}
	err := g.Wait()
	return int(n.Load()), err
}

// scanTkSeq is tablekit's sequential iterator over the whole table.
func scanTkSeq(ctx context.Context, q query.Query[workload.Item]) (int, error) {
	n := 0
	for it, err := range q.All(ctx) {
		if err != nil {
			return n, err
		}
		sink.Store(it.RowKey)
		n++
	}
	return n, nil
}

// scanTkParallel is tablekit's parallel segmented query: one segment per
// partition, parallel requests in flight.
func scanTkParallel(ctx context.Context, q query.Query[workload.Item], pks []string, parallel int) (int, error) {
	cur, err := q.Parallel(query.PartitionSegments(pks...), &query.ParallelOptions{Parallelism: parallel})
	if err != nil {
		return 0, err
	}
	n := 0
	for it, err := range cur.All(ctx) {
		if err != nil {
			return n, err
		}
		sink.Store(it.RowKey)
		n++
	}
	return n, nil
}

type scanRun struct {
	key, label string
	scan       func(ctx context.Context) (int, error)
}

// scanScenarios are the scans of the loaded table through endpoint.
func (b *bench) scanScenarios(lat, ep, name string) ([]scanRun, error) {
	c, err := plainClient(ep, name, nil)
	if err != nil {
		return nil, err
	}
	tbl, err := tkTable(ep, name, nil)
	if err != nil {
		return nil, err
	}
	pks := workload.PartitionKeys()
	par := b.cfg.scanParallel
	return []scanRun{
		{"scan/plain-seq/" + lat, "plain aztables pager, sequential", func(ctx context.Context) (int, error) {
			return scanPlainSeq(ctx, c, nil)
		}},
		{"scan/tk-seq/" + lat, "tablekit sequential iterator (`query.New(t).All`)", func(ctx context.Context) (int, error) {
			return scanTkSeq(ctx, query.New(tbl))
		}},
		{"scan/tk-par/" + lat, fmt.Sprintf("tablekit parallel segmented query (%d partition segments, %d in flight)", len(pks), par), func(ctx context.Context) (int, error) {
			return scanTkParallel(ctx, query.New(tbl), pks, par)
		}},
		{"scan/plain-fan/" + lat, fmt.Sprintf("hand-written errgroup fan-out over plain aztables pagers (%d partitions, `SetLimit(%d)`)", len(pks), par), func(ctx context.Context) (int, error) {
			return scanPlainFanOut(ctx, c, pks, par)
		}},
	}, nil
}

// runScans loads the scan table once and runs the scans, the heap
// measurement and the command's runs on it.
func (b *bench) runScans(ctx context.Context) error {
	name := b.tableName("scan")
	if err := b.createTable(ctx, name); err != nil {
		return err
	}
	defer func() { _ = b.deleteTable(context.WithoutCancel(ctx), name) }()
	c, err := plainClient(b.direct, name, nil)
	if err != nil {
		return err
	}
	t0 := time.Now()
	if _, err := insertPlainTxn(ctx, c, b.items, b.cfg.txnOps, b.cfg.txnWorkers); err != nil {
		return fmt.Errorf("loading the scan table: %w", err)
	}
	b.log("loaded %d entities in %.1fs", len(b.items), time.Since(t0).Seconds())
	// One untimed scan first: the first read of a freshly loaded table can
	// be much slower in Azurite, and that one-off cost is not what is
	// compared.
	t0 = time.Now()
	if n, err := scanPlainSeq(ctx, c, nil); err != nil || n != len(b.items) {
		return fmt.Errorf("warm-up scan: %d entities, %v", n, err)
	}
	b.log("warm-up scan in %.1fs", time.Since(t0).Seconds())
	if b.want("scans") {
		if err := b.runScanRounds(ctx, name); err != nil {
			return err
		}
	}
	if b.want("heap") {
		if err := b.runHeapScans(ctx, name); err != nil {
			return err
		}
	}
	if b.want("cli") {
		return b.runCLI(ctx, name)
	}
	return nil
}

// runScanRounds scans the loaded table locally, at 20 ms and at 100 ms of
// added latency, and measures projection.
func (b *bench) runScanRounds(ctx context.Context, name string) error {

	for _, l := range []struct {
		lat     string
		latency time.Duration
		only    map[string]bool // nil: all scenarios
	}{
		{"local", 0, nil},
		{"lat", b.cfg.latency, nil},
		{"high", b.cfg.latencyHigh, map[string]bool{"scan/plain-seq/high": true, "scan/tk-par/high": true}},
	} {
		ep := b.direct
		if l.latency > 0 {
			ep = b.via
		}
		b.px.SetLatency(l.latency)
		runs, err := b.scanScenarios(l.lat, ep, name)
		if err != nil {
			return err
		}
		for round := range b.cfg.rounds {
			for _, r := range runs {
				if l.only != nil && !l.only[r.key] {
					continue
				}
				if err := b.timedScan(ctx, r.key, r.scan, round, l.latency > 0); err != nil {
					return err
				}
			}
		}
	}
	b.px.SetLatency(0)
	return b.runProjection(ctx, name)
}

func (b *bench) timedScan(ctx context.Context, key string, scan func(context.Context) (int, error), round int, viaProxy bool) error {
	rctx, cancel := context.WithTimeout(ctx, b.cfg.scenarioTimeout)
	defer cancel()
	b.px.Reset()
	s, err := b.m.measure(rctx, scan)
	if viaProxy {
		for _, n := range b.px.Counts() {
			s.reqs += n
		}
	}
	if err == nil && s.n != len(b.items) {
		err = fmt.Errorf("read %d entities, want %d", s.n, len(b.items))
	}
	if err != nil {
		return fmt.Errorf("%s round %d: %w", key, round+1, err)
	}
	b.record(key, s)
	return nil
}

// runProjection scans the table with tablekit's iterator with and without
// $select of 2 of the 10 properties, counting the bytes received on the
// wire (status lines, headers and bodies) by a counting dialer under
// tablekit's tuned transport.
func (b *bench) runProjection(ctx context.Context, name string) error {
	base, err := tunedTransport()
	if err != nil {
		return err
	}
	var w wire
	tbl, err := tkTable(b.direct, name, &table.Options{Transport: w.transport(base)})
	if err != nil {
		return err
	}
	runs := []struct {
		key string
		q   query.Query[workload.Item]
	}{
		{"scan/tk-all/proj", query.New(tbl)},
		{"scan/tk-select/proj", query.New(tbl).Select(workload.Projection...)},
	}
	for round := range b.cfg.rounds {
		for _, r := range runs {
			w.reset()
			rctx, cancel := context.WithTimeout(ctx, b.cfg.scenarioTimeout)
			s, err := b.m.measure(rctx, func(ctx context.Context) (int, error) { return scanTkSeq(ctx, r.q) })
			cancel()
			if err == nil && s.n != len(b.items) {
				err = fmt.Errorf("read %d entities, want %d", s.n, len(b.items))
			}
			if err != nil {
				return fmt.Errorf("%s round %d: %w", r.key, round+1, err)
			}
			s.bytes, s.body, s.reqs = w.read.Load(), w.bodyBytes.Load(), int(w.responses.Load())
			b.record(r.key, s)
		}
	}
	return nil
}
