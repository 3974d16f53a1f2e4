package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"golang.org/x/sync/errgroup"

	"github.com/tablekit/tablekit/devtools/azurite"
	"github.com/tablekit/tablekit/devtools/faults"
	"github.com/tablekit/tablekit/devtools/workload"
	"github.com/tablekit/tablekit/table"
)

// connEntities is how many entities the point gets pick from.
const connEntities = 1_000

// runConns measures connection churn: connRequests point gets in total by
// connWorkers goroutines, steadily (each goroutine starts its next get as
// soon as one ends) and in bursts (connWorkers gets at once, then the next
// burst), through a new proxy per run (so no pooled connection carries
// over), which counts the TCP connections the client opens.
func (b *bench) runConns(ctx context.Context) error {
	name := b.tableName("conn")
	if err := b.createTable(ctx, name); err != nil {
		return err
	}
	defer func() { _ = b.deleteTable(context.WithoutCancel(ctx), name) }()
	c, err := plainClient(b.direct, name, nil)
	if err != nil {
		return err
	}
	items := b.items[:min(connEntities, len(b.items))]
	if _, err := insertPlainTxn(ctx, c, items, b.cfg.txnOps, b.cfg.txnWorkers); err != nil {
		return err
	}
	base := strings.TrimSuffix(b.direct, "/"+azurite.Account)

	type variant struct {
		key string
		get func(ep string) (func(ctx context.Context, it *workload.Item) error, error)
	}
	plainGet := func(tr policy.Transporter) func(ep string) (func(context.Context, *workload.Item) error, error) {
		return func(ep string) (func(context.Context, *workload.Item) error, error) {
			c, err := plainClient(ep, name, tr)
			if err != nil {
				return nil, err
			}
			return func(ctx context.Context, it *workload.Item) error {
				resp, err := c.GetEntity(ctx, it.PartitionKey, it.RowKey, nil)
				if err != nil {
					return err
				}
				var v plainItem
				return json.Unmarshal(resp.Value, &v)
			}, nil
		}
	}
	variants := []variant{
		{"conns/go-default", func(ep string) (func(context.Context, *workload.Item) error, error) {
			tr := http.DefaultTransport.(*http.Transport).Clone()
			return plainGet(&http.Client{Transport: tr})(ep)
		}},
		{"conns/az-default", plainGet(nil)},
		{"conns/tk", func(ep string) (func(context.Context, *workload.Item) error, error) {
			tbl, err := tkTable(ep, name, nil)
			if err != nil {
				return nil, err
			}
			return func(ctx context.Context, it *workload.Item) error {
				_, err := tbl.Get(ctx, it.PartitionKey, it.RowKey, nil)
				return err
			}, nil
		}},
	}
	patterns := []struct {
		name string
		run  func(ctx context.Context, items []workload.Item, get func(context.Context, *workload.Item) error) (int, error)
	}{
		{"steady", b.pointGets},
		{"burst", b.pointGetBursts},
	}
	for round := range b.cfg.rounds {
		for _, pat := range patterns {
			for _, v := range variants {
				key := v.key + "/" + pat.name
				px, err := faults.Start(base)
				if err != nil {
					return err
				}
				get, err := v.get(px.Endpoint(azurite.Account))
				if err != nil {
					px.Close()
					return err
				}
				rctx, cancel := context.WithTimeout(ctx, b.cfg.scenarioTimeout)
				s, err := b.m.measure(rctx, func(ctx context.Context) (int, error) {
					return pat.run(ctx, items, get)
				})
				cancel()
				s.conns = px.Conns()
				px.Close()
				if err != nil {
					return fmt.Errorf("%s round %d: %w", key, round+1, err)
				}
				b.record(key, s)
			}
		}
	}
	return nil
}

// pointGets runs connRequests gets with connWorkers goroutines.
func (b *bench) pointGets(ctx context.Context, items []workload.Item, get func(context.Context, *workload.Item) error) (int, error) {
	var next atomic.Int64
	g, ctx := errgroup.WithContext(ctx)
	for range b.cfg.connWorkers {
		g.Go(func() error {
			for {
				i := int(next.Add(1) - 1)
				if i >= b.cfg.connRequests {
					return nil
				}
				if err := get(ctx, &items[(i*7919)%len(items)]); err != nil {
					return err
				}
			}
		})
	}
	if err := g.Wait(); err != nil {
		return 0, err
	}
	return b.cfg.connRequests, nil
}

// pointGetBursts runs connRequests gets in bursts of connWorkers at once,
// each burst waiting for all of its gets, as a handler that fans out per
// incoming request does.
func (b *bench) pointGetBursts(ctx context.Context, items []workload.Item, get func(context.Context, *workload.Item) error) (int, error) {
	for done := 0; done < b.cfg.connRequests; {
		n := min(b.cfg.connWorkers, b.cfg.connRequests-done)
		g, gctx := errgroup.WithContext(ctx)
		for j := range n {
			i := done + j
			g.Go(func() error { return get(gctx, &items[(i*7919)%len(items)]) })
		}
		if err := g.Wait(); err != nil {
			return done, err
		}
		done += n
	}
	return b.cfg.connRequests, nil
}

// runInsertBytes measures the bytes a client receives per insert: plain
// AddEntity (the service echoes the entity) against tablekit's Table.Add
// (Prefer: return-no-content), both through a counting transport.
func (b *bench) runInsertBytes(ctx context.Context) error {
	tuned, err := tunedTransport()
	if err != nil {
		return err
	}
	items := b.items[:min(b.cfg.bytesInserts, len(b.items))]
	for round := range b.cfg.rounds {
		for _, key := range []string{"bytes/plain", "bytes/tk"} {
			name := b.tableName("byt")
			if err := b.createTable(ctx, name); err != nil {
				return err
			}
			var w wire
			var write func(ctx context.Context) (int, error)
			if key == "bytes/plain" {
				c, err := plainClient(b.direct, name, w.transport(http.DefaultTransport.(*http.Transport)))
				if err != nil {
					return err
				}
				write = func(ctx context.Context) (int, error) { return insertPlainSeq(ctx, c, items) }
			} else {
				tbl, err := tkTable(b.direct, name, &table.Options{Transport: w.transport(tuned)})
				if err != nil {
					return err
				}
				write = func(ctx context.Context) (int, error) {
					for i := range items {
						if _, err := tbl.Add(ctx, items[i]); err != nil {
							return i, err
						}
					}
					return len(items), nil
				}
			}
			rctx, cancel := context.WithTimeout(ctx, b.cfg.scenarioTimeout)
			s, err := b.m.measure(rctx, write)
			cancel()
			s.bytes, s.body, s.reqs = w.read.Load(), w.bodyBytes.Load(), int(w.responses.Load())
			if derr := b.deleteTable(ctx, name); err == nil {
				err = derr
			}
			if err != nil {
				return fmt.Errorf("%s round %d: %w", key, round+1, err)
			}
			b.record(key, s)
		}
	}
	return nil
}
