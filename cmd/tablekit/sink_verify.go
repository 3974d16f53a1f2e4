package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"

	"golang.org/x/sync/errgroup"

	"github.com/tablekit/tablekit/query"
	"github.com/tablekit/tablekit/table"
)

// verifySink compares a scan with another table's scan of the same keys,
// or with a file, counting what differs. Its position is the last key
// compared in each segment (a file: in the one stream), saved with the
// counts.
type verifySink struct {
	e          *env
	src        *scanSource
	pos        []string     // the source table and the target, as given
	file       bool         // the target is a file
	backup     *backupState // the target is a backup's state
	format     string       // the file's
	delim      rune
	partition  string // --partition
	ta         *tally
	srcOrdered bool
	dconn      *connection // the target table's account
	last       []segPos
	st, dt     *table.Table[table.RawEntity]
	dyn        *dynTable
}

func (*verifySink) check(*job) error { return nil }

// completed prints what the complete job's run found, as that run printed it.
func (s *verifySink) completed(j *job, err error) error {
	if rerr := report(s.e, s.pos, &s.ta.vs); rerr != nil && !errors.Is(rerr, errDiffer) {
		return rerr
	}
	return err
}

// open reads the checkpoint's position and makes the checkpoint save it
// with the counts.
func (s *verifySink) open(_ context.Context, j *job) (err error) {
	gcVerify.apply()
	nseg := len(s.src.plan.segs)
	if s.file || s.backup != nil {
		nseg = 1
	}
	s.last = make([]segPos, nseg)
	if j.cp.Token != "" {
		if err := json.Unmarshal([]byte(j.cp.Token), &s.last); err != nil || len(s.last) != nseg {
			return fmt.Errorf("checkpoint: bad position %q", j.cp.Token)
		}
	}
	j.position = func() string {
		b, _ := json.Marshal(s.last)
		return string(b)
	}
	j.save = func(complete bool) error {
		if j.sv.Extra == nil {
			j.sv.Extra = map[string]string{}
		}
		b, _ := json.Marshal(&s.ta.vs)
		j.sv.Extra[extraVerify] = string(b)
		return j.sv.save(j.at(), j.done, complete)
	}
	svc := s.src.svc
	if s.st, err = table.New[table.RawEntity](svc, s.pos[0]); err != nil {
		return err
	}
	s.dyn, err = table.New[table.Entity](svc, s.pos[0]) // decodes what differs
	if err == nil && !s.file && s.backup == nil {
		s.dt, err = table.New[table.RawEntity](s.dconn.svc, s.pos[1])
	}
	return err
}

func (s *verifySink) move(ctx context.Context, j *job) error {
	last := s.last
	// done moves segment i past key k with the counts: a run stopped
	// later resumes after k, each key counted once.
	done := func(i int, k *row) error {
		last[i].Key = &[2]string{k.PartitionKey, k.RowKey}
		j.done++
		j.m.add(1)
		return j.saveDue()
	}
	decode := func(r *row) (map[string]any, error) { return decodeRow(s.dyn, r) }
	src, plan := sideOf{s.st, s.srcOrdered}, *s.src.plan
	if s.backup != nil {
		return verifyAgainst(ctx, src, plan, s.partition, last[0].Key, s.ta, decode, func(k *row) error { return done(0, k) }, s.backup.rows)
	}
	if s.file {
		return verifyFile(ctx, src, s.dyn, plan, s.partition, s.pos[1], s.format, s.delim, last[0].Key, s.ta, decode, func(k *row) error { return done(0, k) })
	}
	return verifySegments(ctx, src, sideOf{s.dt, s.dconn.svc.Backend() != table.CosmosDB}, plan, last, s.ta, decode, done)
}

func (s *verifySink) close(_ *job, err error) error {
	if err != nil {
		return err
	}
	return report(s.e, s.pos, &s.ta.vs)
}

// segPos is how far verify got in one segment: the last key compared, or
// the whole segment.
type segPos struct {
	Key  *[2]string `json:"k,omitempty"`
	Done bool       `json:"done,omitempty"`
}

// after is the filter of the keys after k, nil for all.
func after(k *[2]string) query.Filter {
	if k == nil {
		return query.And()
	}
	return query.Or(query.PartitionKey.Gt(query.String(k[0])),
		query.And(query.Partition(k[0]), query.RowKey.Gt(query.String(k[1]))))
}

// verifySegments compares the two tables segment by segment, up to
// --parallel segments at once: each segment's two sides come in key order
// (a page read ahead on each) or are sorted (Cosmos DB), and are merged by
// key. The sorts at once share oneSort's memory.
func verifySegments(ctx context.Context, src, dst sideOf, plan scanPlan, last []segPos, ta *tally, decode func(*row) (map[string]any, error), done func(int, *row) error) error {
	mu := &ta.mu // the tally, the positions and the checkpoint
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(plan.parallel)
	sorts := 0
	for _, s := range []sideOf{src, dst} {
		if !s.ordered {
			sorts += plan.parallel
		}
	}
	lim := oneSort.share(max(sorts, 1))
	for i, seg := range plan.segs {
		if last[i].Done {
			continue
		}
		f := query.And(plan.filter, seg.Filter, after(last[i].Key))
		g.Go(func() error {
			err := compareStreams(src.rows(ctx, f, lim), dst.rows(ctx, f, lim), ta, mu, decode, func(k *row) error {
				return done(i, k)
			})
			if err == nil {
				mu.Lock()
				last[i].Done = true
				mu.Unlock()
			}
			return err
		})
	}
	return g.Wait()
}

// verifyFile compares the table's ordered scan with the file's entities,
// sorted.
func verifyFile(ctx context.Context, st sideOf, dyn *dynTable, plan scanPlan, partition, path, format string, delim rune, from *[2]string, ta *tally, decode func(*row) (map[string]any, error), done func(*row) error) error {
	return verifyAgainst(ctx, st, plan, partition, from, ta, decode, done, func(keep func(pk, rk string) bool, lim runLimits) iter.Seq2[row, error] {
		return func(yield func(row, error) bool) {
			for e, err := range sortedFile(dyn, path, format, delim, func(e *table.Entity) bool { return keep(e.PartitionKey, e.RowKey) }, lim) {
				if !yield(row{PartitionKey: e.PartitionKey, RowKey: e.RowKey, props: e.Properties}, err) || err != nil {
					return
				}
			}
		}
	})
}

// verifyAgainst compares the table's ordered scan with one stream of
// entities in no key order (a file, a backup), which target sorts within
// lim after keeping those in the scan's scope, after from.
func verifyAgainst(ctx context.Context, st sideOf, plan scanPlan, partition string, from *[2]string, ta *tally, decode func(*row) (map[string]any, error), done func(*row) error,
	target func(keep func(pk, rk string) bool, lim runLimits) iter.Seq2[row, error]) error {
	plan.filter = query.And(plan.filter, after(from))
	cur, err := openScan(query.New(st.t), plan, "")
	if err != nil {
		return err
	}
	var src iter.Seq2[row, error] = func(yield func(row, error) bool) {
		for e, err := range cur.All(ctx) {
			if !yield(rawRow(e), err) || err != nil {
				return
			}
		}
	}
	lim := oneSort
	if !st.ordered {
		lim = oneSort.share(2) // the table's sort and the target's
		src = rowSpill.sorted(src, lim)
	}
	keep := func(pk, rk string) bool {
		k := pk
		if partition != "" {
			if pk != partition {
				return false
			}
			k = rk
		}
		return plan.share.Contains(k) && (from == nil || compareKeyStrings(pk, rk, from[0], from[1]) > 0)
	}
	return compareStreams(src, target(keep, lim), ta, nil, decode, done)
}
