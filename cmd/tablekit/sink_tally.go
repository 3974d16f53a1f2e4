package main

import (
	"context"
	"fmt"

	"github.com/tablekit/tablekit/query"
)

// tallySink is a scan's sink that only looks at each entity (count,
// schema): begin, when set, is called once the scan is split, each with
// every entity, and report says what was found once the run ended well,
// or, when the checkpoint says the job is complete, what its run found
// (count's number, kept in the checkpoint).
type tallySink[T any] struct {
	src    *scanSource
	q      query.Query[T]
	cur    *query.ParallelCursor[T]
	begin  func()
	each   func(T) error
	report func(j *job) error
}

func (*tallySink[T]) check(*job) error { return nil }

func (s *tallySink[T]) open(_ context.Context, j *job) (err error) {
	if s.begin != nil {
		s.begin()
	}
	s.cur, err = scan(s.src, s.q, j)
	return err
}

func (s *tallySink[T]) move(ctx context.Context, j *job) error { return stream(ctx, j, s.cur, s.each) }

func (s *tallySink[T]) close(j *job, err error) error {
	if err != nil {
		return err
	}
	return s.report(j)
}

func (s *tallySink[T]) completed(j *job, err error) error {
	if rerr := s.report(j); err == nil {
		err = rerr
	}
	return err
}

// printDone is count's report: the entities counted, an earlier run's
// included.
func printDone(e *env) func(j *job) error {
	return func(j *job) error {
		_, err := fmt.Fprintln(e.stdout, j.done)
		return err
	}
}
