package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/batch"
	"github.com/tablekit/tablekit/query"
	"github.com/tablekit/tablekit/table"
)

// dryRunSink is the sink of --dry-run: it reads what the run reads (the
// input file, the scan), groups each round's entities into the
// transactions the run's batch.Write would send (batch.Plan) and prints
// the requests by kind. It sends no write: no table is created.
type dryRunSink struct {
	e     *env
	verb  string
	d     *dryRun
	sent  *sentRequests // the connections' requests: the reads
	start func(ctx context.Context, j *job) error
	// count reads the run's rounds, calling add with each round's
	// transactions (their sizes) and the entities the run would reject.
	count func(ctx context.Context, j *job, add func(sizes []int, rejects int)) error
	plan  requestPlan
}

func (*dryRunSink) check(*job) error { return nil }

func (s *dryRunSink) open(ctx context.Context, j *job) error {
	if s.start == nil {
		return nil
	}
	return s.start(ctx, j)
}

func (s *dryRunSink) move(ctx context.Context, j *job) error {
	return s.count(ctx, j, func(sizes []int, rejects int) {
		n := 0
		for _, sz := range sizes {
			n += sz
		}
		s.plan.transactions += int64(len(sizes))
		s.plan.txOps += int64(n)
		j.done += int64(n)
		j.m.add(n)
		j.m.rejects.Add(int64(rejects))
	})
}

func (s *dryRunSink) close(_ *job, err error) error {
	if err != nil {
		return err
	}
	s.plan.pages = s.sent.reads.Load()
	if w := s.sent.writes.Load(); w > 0 {
		// A dry run that wrote would be a bug worth stopping on.
		return fmt.Errorf("the dry run sent %d requests other than reads", w)
	}
	return s.plan.print(s.e.stdout, s.verb, s.d.price)
}

// planOps is batch.Plan of a round, an operation it finds invalid counted
// as a reject (as import's writer rejects it) and left out.
func planOps[E any](t *table.Table[E], ops []batch.Op[E]) (sizes []int, rejects int, err error) {
	for {
		sizes, err = batch.Plan(t, ops)
		var ve *tablekit.ValidationError
		if err == nil || !errors.As(err, &ve) || ve.Index < 0 || ve.Index >= len(ops) {
			return sizes, rejects, err
		}
		rejects++
		ops = append(ops[:ve.Index:ve.Index], ops[ve.Index+1:]...)
	}
}

// dryImport counts an import: its file read in the rounds the import
// writes, each planned as its --mode's operations.
func dryImport(in *fileSource, w *roundWriter) func(context.Context, *job, func([]int, int)) error {
	return func(ctx context.Context, j *job, add func([]int, int)) error {
		j.m.inRead, j.m.inTotal = &in.read, in.inp.size
		return pipe(ctx, 1, func(ctx context.Context, out chan<- round) error { return in.rounds(ctx, j.roundOps, out) },
			func(_ context.Context, r round) error {
				var sizes []int
				var rejects int
				var err error
				if w.rt != nil {
					ops := make([]batch.Op[table.RawEntity], 0, len(r.items))
					for i := range r.items {
						// Checked as the import checks a round it writes.
						if w.checkRaw(&r.items[i]) != nil {
							rejects++
							continue
						}
						ops = append(ops, batch.Op[table.RawEntity]{Kind: w.kind, Entity: r.items[i].raw, Mode: w.mode})
					}
					var more int
					sizes, more, err = planOps(w.rt, ops)
					rejects += more
				} else {
					ops := make([]batch.Op[table.Entity], len(r.items))
					for i, it := range r.items {
						ops[i] = batch.Op[table.Entity]{Kind: w.kind, Entity: it.ent, Mode: w.mode}
					}
					sizes, rejects, err = planOps(w.t, ops)
				}
				add(sizes, rejects+len(r.rejects))
				return err
			})
	}
}

// dryCopy counts a copy: the source scanned as the copy scans it, each
// round planned as upserts into the target.
func dryCopy(src *scanSource, st, dt *table.Table[table.RawEntity]) (start func(context.Context, *job) error, count func(context.Context, *job, func([]int, int)) error) {
	var cur *query.ParallelCursor[table.RawEntity]
	start = func(_ context.Context, j *job) (err error) {
		src.plan.readers = copyReaders(src.plan.parallel)
		cur, err = scan(src, query.New(st), j)
		return err
	}
	count = func(ctx context.Context, j *job, add func([]int, int)) error {
		return pipe(ctx, 0, func(ctx context.Context, out chan<- round) error { return scanRounds(ctx, cur, j.roundOps, nil, out) },
			func(_ context.Context, r round) error {
				ops := make([]batch.Op[table.RawEntity], len(r.items))
				for i, it := range r.items {
					ops[i] = batch.Op[table.RawEntity]{Kind: batch.Upsert, Entity: it.raw, Mode: table.Replace}
				}
				sizes, err := batch.Plan(dt, ops)
				add(sizes, 0)
				return err
			})
	}
	return start, count
}

// dryDelete counts a delete: the keys-only scan the delete reads, in its
// rounds of deleteRound keys, each planned as deletes.
func dryDelete(src *scanSource, t *table.Table[keyEntity]) (start func(context.Context, *job) error, count func(context.Context, *job, func([]int, int)) error) {
	ds := &deleteSink{src: src, t: t}
	start = func(ctx context.Context, j *job) error { return ds.open(ctx, j) }
	count = func(ctx context.Context, j *job, add func([]int, int)) error {
		return pipe(ctx, 1, ds.rounds, func(_ context.Context, r keysRound) error {
			ops := make([]batch.Op[keyEntity], len(r.keys))
			for i, k := range r.keys {
				ops[i] = batch.Op[keyEntity]{Kind: batch.Delete, PartitionKey: k.PartitionKey, RowKey: k.RowKey, ETag: table.AnyETag}
			}
			sizes, err := batch.Plan(t, ops)
			add(sizes, 0)
			return err
		})
	}
	return start, count
}
