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

// deleteRound is how many keys are read before they are deleted and the
// checkpoint moves past them: enough for full transactions across several
// partitions, little enough to lose only seconds of work to a crash.
var deleteRound = 2000

// deleteMaxPasses bounds the resubmissions of a round whose transactions
// were refused because an entity was already gone.
const deleteMaxPasses = 10

// deleteSink deletes the keys of a scan, a round at a time. The position
// moves only past rounds whose every delete committed, so a resumed run
// reads again whatever was not deleted.
type deleteSink struct {
	e    *env
	src  *scanSource
	t    *table.Table[keyEntity]
	opts *batch.WriteOptions
	cur  *query.ParallelCursor[keyEntity]
	// keepPosition: a position in the middle of a page can be found again.
	// Without key order (Cosmos DB) it is found by reading the page as it
	// was, which deleting what was read changes. So the checkpoint keeps
	// no position there: a resumed run scans from the start, where only
	// what is left is found.
	keepPosition bool
	gone         int
}

func (s *deleteSink) check(j *job) error {
	if !s.keepPosition {
		j.token = ""
	}
	return nil
}

func (s *deleteSink) open(_ context.Context, j *job) (err error) {
	s.cur, err = scan(s.src, query.New(s.t).Select(), j)
	return err
}

// keysRound is a round of keys to delete and the scan's position after
// them.
type keysRound struct {
	keys  []keyEntity
	token string
}

func (s *deleteSink) move(ctx context.Context, j *job) error {
	frozen := false
	var rejected error
	err := pipe(ctx, 1, s.rounds, func(ctx context.Context, r keysRound) error {
		res, err := deleteKeys(ctx, s.t, r.keys, s.opts)
		j.m.add(res.deleted)
		j.m.rejects.Add(int64(res.failed))
		j.done += int64(res.deleted)
		s.gone += res.gone
		if err != nil && ctx.Err() != nil {
			return err
		}
		if err != nil {
			if rejected == nil {
				rejected = err
			}
			frozen = true // keep the position before the failure for a resume
		}
		if !frozen {
			if s.keepPosition {
				j.token = r.token
			}
			return j.saveDue()
		}
		return nil
	})
	if err == nil && rejected != nil {
		err = fmt.Errorf("%d entities not deleted: %w", j.m.rejects.Load(), rejected)
	}
	return err
}

// rounds cuts the scan's keys into rounds of deleteRound.
func (s *deleteSink) rounds(ctx context.Context, rounds chan<- keysRound) error {
	defer close(rounds)
	var keys []keyEntity
	for k, err := range s.cur.All(ctx) {
		if err != nil {
			return err
		}
		keys = append(keys, k)
		if len(keys) >= deleteRound {
			select {
			case rounds <- keysRound{keys, scanPosition(s.cur.Token())}:
			case <-ctx.Done():
				return ctx.Err()
			}
			keys = nil
		}
	}
	select {
	case rounds <- keysRound{keys, scanPosition(s.cur.Token())}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *deleteSink) stopped(*job) {
	if s.gone > 0 {
		fmt.Fprintf(s.e.stderr, "tablekit delete: %d entities were already gone\n", s.gone)
	}
}

func (s *deleteSink) close(_ *job, err error) error { return err }

type deleteResult struct{ deleted, gone, failed int }

// deleteKeys deletes the keys unconditionally with batch.Write. A
// transaction refused because one of its entities is already gone (404,
// nothing in it was deleted) is sent again without that entity; so are the
// transactions queued behind it.
func deleteKeys(ctx context.Context, t *table.Table[keyEntity], keys []keyEntity, o *batch.WriteOptions) (deleteResult, error) {
	var res deleteResult
	var firstErr error
	for pass := 0; len(keys) > 0; pass++ {
		ops := make([]batch.Op[keyEntity], len(keys))
		for i, k := range keys {
			ops[i] = batch.Op[keyEntity]{Kind: batch.Delete, PartitionKey: k.PartitionKey, RowKey: k.RowKey, ETag: table.AnyETag}
		}
		sum, err := batch.Write(ctx, t, ops, o)
		if err == nil {
			res.deleted += len(ops)
			return res, firstErr
		}
		if ctx.Err() != nil {
			for i := range ops {
				if sum.State(i) == batch.Committed {
					res.deleted++
				}
			}
			return res, err
		}
		why := map[int]error{}
		missing := map[int]bool{}
		for _, ch := range sum.Incomplete {
			for _, i := range ch.Ops {
				why[i] = ch.Err
			}
			var se *tablekit.ServiceError
			if errors.As(ch.Err, &se) && se.Index >= 0 && errors.Is(ch.Err, tablekit.ErrNotFound) {
				missing[se.Index] = true
			}
		}
		var again []keyEntity
		for i := range ops {
			cause := why[i]
			switch {
			case sum.State(i) == batch.Committed:
				res.deleted++
			case missing[i]:
				res.gone++
			case errors.Is(cause, tablekit.ErrMaybeCommitted):
				// A retry after a lost reply found an entity gone: the
				// first attempt deleted the whole transaction.
				res.deleted++
			case pass+1 < deleteMaxPasses && (cause == nil || sum.State(i) == batch.NotSent || errors.Is(cause, tablekit.ErrNotFound)):
				again = append(again, keys[i])
			default:
				res.failed++
				if firstErr == nil {
					firstErr = cause
					if firstErr == nil {
						firstErr = err
					}
				}
			}
		}
		keys = again
	}
	return res, firstErr
}
