package query

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/table"
)

// A continuation that does not advance, or names a row of no partition,
// ends every kind of run with tablekit.ErrUnavailable after its page was
// read continuationReads times: no loop, no silent end.
func TestBadContinuationEndsTheQuery(t *testing.T) {
	for _, tc := range []struct {
		name   string
		repeat bool
	}{{"repeats the request", true}, {"row key without partition key", false}} {
		for _, run := range []struct {
			name string
			do   func(context.Context, Query[item]) error
		}{
			{"All", func(ctx context.Context, q Query[item]) error {
				_, err := Collect(q.All(ctx))
				return err
			}},
			{"Pages", func(ctx context.Context, q Query[item]) error {
				c, err := q.Resume("")
				if err != nil {
					return err
				}
				for _, err := range c.Pages(ctx) {
					if err != nil {
						return err
					}
				}
				return nil
			}},
			{"Parallel", func(ctx context.Context, q Query[item]) error {
				pc, err := q.Parallel(RangeSegments("x"), nil) // "p", the first continuation, lies in both
				if err != nil {
					return err
				}
				_, err = Collect(pc.All(ctx))
				return err
			}},
		} {
			t.Run(tc.name+"/"+run.name, func(t *testing.T) {
				tr := &brokenContinuation{repeat: tc.repeat}
				svc, err := table.NewServiceWithSharedKey("http://127.0.0.1:1/devstoreaccount1", "devstoreaccount1", "a2V5", &table.Options{Transport: tr})
				if err != nil {
					t.Fatal(err)
				}
				tbl, err := table.New[item](svc, "stalls")
				if err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				err = run.do(ctx, New(tbl).Where(Property("N").Ge(Int32(0))))
				if !errors.Is(err, tablekit.ErrUnavailable) {
					t.Fatalf("got %v, want tablekit.ErrUnavailable", err)
				}
				// A first page (whose continuation may be followed), then
				// the reads of the page that cannot be followed.
				max := 1 + continuationReads
				if run.name == "Parallel" {
					max *= 2
				}
				if got := tr.requests; got > max {
					t.Errorf("requests: got %d, want at most %d (%d per segment)", got, max, 1+continuationReads)
				}
			})
		}
	}
}
