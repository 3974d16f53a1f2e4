package main

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"golang.org/x/sync/errgroup"

	"github.com/tablekit/tablekit/devtools/workload"
)

// txnAction is the operation of the hand-written transaction loop: an
// upsert that replaces, the same operation as the bulk writer's default, so
// that both ask the same work of the service.
const txnAction = aztables.TransactionTypeInsertReplace

// insertPlainSeq is plain aztables code inserting one entity at a time: the
// usual hand-written encoding (a map with EDM annotations and encoding/json)
// and AddEntity with default options (so the service echoes each entity).
func insertPlainSeq(ctx context.Context, c *aztables.Client, items []workload.Item) (int, error) {
	for i := range items {
		body, err := workload.MarshalMap(&items[i])
		if err != nil {
			return i, err
		}
		if _, err := c.AddEntity(ctx, body, nil); err != nil {
			return i, fmt.Errorf("AddEntity: %w", err)
		}
	}
	return len(items), nil
}

// insertPlainParallel is the same with workers goroutines sharing the
// client (and azcore's default transport).
func insertPlainParallel(ctx context.Context, c *aztables.Client, items []workload.Item, workers int) (int, error) {
	var next atomic.Int64
	g, ctx := errgroup.WithContext(ctx)
	for range workers {
		g.Go(func() error {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(items) {
					return nil
				}
				body, err := workload.MarshalMap(&items[i])
				if err != nil {
					return err
				}
				if _, err := c.AddEntity(ctx, body, nil); err != nil {
					return fmt.Errorf("AddEntity: %w", err)
				}
			}
		})
	}
	if err := g.Wait(); err != nil {
		return 0, err
	}
	return len(items), nil
}

// insertPlainTxn is a hand-written aztables transaction loop: group by
// PartitionKey, cut groups into transactions of ops operations, submit them
// with workers goroutines (errgroup), encode each entity the usual way.
func insertPlainTxn(ctx context.Context, c *aztables.Client, items []workload.Item, ops, workers int) (int, error) {
	groups := map[string][]int{}
	var order []string
	for i := range items {
		pk := items[i].PartitionKey
		if _, ok := groups[pk]; !ok {
			order = append(order, pk)
		}
		groups[pk] = append(groups[pk], i)
	}
	var chunks [][]int
	for _, pk := range order {
		idx := groups[pk]
		for len(idx) > 0 {
			n := min(ops, len(idx))
			chunks = append(chunks, idx[:n])
			idx = idx[n:]
		}
	}
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	for _, chunk := range chunks {
		g.Go(func() error {
			actions := make([]aztables.TransactionAction, len(chunk))
			for j, i := range chunk {
				body, err := workload.MarshalMap(&items[i])
				if err != nil {
					return err
				}
				actions[j] = aztables.TransactionAction{ActionType: txnAction, Entity: body}
			}
			if _, err := c.SubmitTransaction(ctx, actions, nil); err != nil {
				return fmt.Errorf("SubmitTransaction: %w", err)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return 0, err
	}
	return len(items), nil
}

// insertRun is one insert scenario: which entities it writes and how.
type insertRun struct {
	key, label string
	count      int // entities written per round
	write      func(ctx context.Context, endpoint, name string, items []workload.Item) (int, error)
}

// insertScenarios are the bulk insert scenarios through endpoint (Azurite
// directly, or the latency proxy).
func (b *bench) insertScenarios(lat string, latency time.Duration) []insertRun {
	seq, par := b.cfg.seqSample, b.cfg.parSample
	if latency > 0 {
		seq, par = b.cfg.seqSampleLat, b.cfg.parSampleLat
	}
	runs := []insertRun{
		{
			key: "insert/plain-seq/" + lat, label: "plain aztables `AddEntity`, sequential", count: seq,
			write: func(ctx context.Context, ep, name string, items []workload.Item) (int, error) {
				c, err := plainClient(ep, name, nil)
				if err != nil {
					return 0, err
				}
				return insertPlainSeq(ctx, c, items)
			},
		},
		{
			key: "insert/plain-par/" + lat, label: fmt.Sprintf("plain aztables `AddEntity`, %d goroutines, default transport", b.cfg.parWorkers), count: par,
			write: func(ctx context.Context, ep, name string, items []workload.Item) (int, error) {
				c, err := plainClient(ep, name, nil)
				if err != nil {
					return 0, err
				}
				return insertPlainParallel(ctx, c, items, b.cfg.parWorkers)
			},
		},
		{
			key: "insert/plain-txn/" + lat, label: fmt.Sprintf("hand-written aztables `SubmitTransaction` loop (%d ops, %d goroutines)", b.cfg.txnOps, b.cfg.txnWorkers), count: b.cfg.entities,
			write: func(ctx context.Context, ep, name string, items []workload.Item) (int, error) {
				c, err := plainClient(ep, name, nil)
				if err != nil {
					return 0, err
				}
				return insertPlainTxn(ctx, c, items, b.cfg.txnOps, b.cfg.txnWorkers)
			},
		},
	}
	if bulk := b.bulkWriter(); bulk != nil {
		runs = append(runs, insertRun{
			key: "insert/tk-bulk/" + lat, label: "tablekit bulk writer (`batch.Write`, defaults)", count: b.cfg.entities,
			write: bulk,
		})
	}
	return runs
}

// runInserts runs the insert scenarios for rounds, interleaved: each round
// runs every scenario once, each time into a new table that is deleted
// afterwards.
func (b *bench) runInserts(ctx context.Context, lat string, latency time.Duration) error {
	ep := b.direct
	if latency > 0 {
		ep = b.via
		b.px.SetLatency(latency)
		defer b.px.SetLatency(0)
	}
	runs := b.insertScenarios(lat, latency)
	for round := range b.cfg.rounds {
		for _, r := range runs {
			name := b.tableName("ins")
			if err := b.createTable(ctx, name); err != nil {
				return err
			}
			items := b.items[:r.count]
			rctx, cancel := context.WithTimeout(ctx, b.cfg.scenarioTimeout)
			s, err := b.m.measure(rctx, func(ctx context.Context) (int, error) { return r.write(ctx, ep, name, items) })
			cancel()
			if err == nil && round == 0 {
				err = b.verifyCount(ctx, name, r.count)
			}
			if derr := b.deleteTable(ctx, name); err == nil {
				err = derr
			}
			if err != nil {
				return fmt.Errorf("%s round %d: %w", r.key, round+1, err)
			}
			b.record(r.key, s)
		}
	}
	return nil
}
