package query

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/tracing"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/devtools/faults"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/retry"
	"github.com/tablekit/tablekit/table"
)

// TestQuerySpans: every run is one span with a child per page; a throttled
// page carries the retry as an event and its attempts.
func TestQuerySpans(t *testing.T) {
	env, px := testenv.Proxied(t)
	loaded := testenv.NewTable[item](t, newService(t, "", nil))
	var all []item
	for p := range 3 {
		for r := range 10 {
			all = append(all, makeItem(p, r))
		}
	}
	load(t, loaded, all)

	segments := PartitionSegments("p00", "p01", "p02")
	tests := []struct {
		name     string
		run      func(ctx context.Context, q Query[item]) (int, error)
		segments bool
	}{
		{"query.Cursor.All", func(ctx context.Context, q Query[item]) (int, error) {
			got, err := Collect(q.All(ctx))
			return len(got), err
		}, false},
		{"query.Cursor.Pages", func(ctx context.Context, q Query[item]) (int, error) {
			n := 0
			for page, err := range q.Pages(ctx) {
				if err != nil {
					return n, err
				}
				n += len(page.Entities)
			}
			return n, nil
		}, false},
		{"query.ParallelCursor.All", func(ctx context.Context, q Query[item]) (int, error) {
			c, err := q.Parallel(segments, &ParallelOptions{Parallelism: 2})
			if err != nil {
				return 0, err
			}
			got, err := Collect(c.All(ctx))
			return len(got), err
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &testenv.Tracer{}
			svc := newService(t, px.Endpoint(env.Account), &table.Options{
				Retry:  &retry.Policy{InitialInterval: 10 * time.Millisecond},
				Azcore: azcore.ClientOptions{TracingProvider: rec.Provider()},
			})
			tbl, err := table.New[item](svc, loaded.Name())
			if err != nil {
				t.Fatal(err)
			}
			px.SetRules(faults.Rule{Match: faults.And(faults.Method(http.MethodGet), faults.PathContains(tbl.Name())), Times: 1,
				Fault: faults.Status(http.StatusServiceUnavailable, "ServerBusy", nil)})
			defer px.SetRules()

			n, err := tt.run(context.Background(), New(tbl).PageSize(7))
			if err != nil || n != len(all) {
				t.Fatalf("run: %d entities, %v; want %d, nil", n, err, len(all))
			}
			runs := rec.Named(tt.name)
			if len(runs) != 1 {
				t.Fatalf("%d %s spans, want 1", len(runs), tt.name)
			}
			root := runs[0]
			pages := rec.Children(root.ID, "query.page")
			if len(pages) == 0 || len(pages) != len(rec.Named("query.page")) {
				t.Fatalf("%d page spans under the run, %d in all; want all of them, at least one", len(pages), len(rec.Named("query.page")))
			}
			wantRoot := map[string]any{"tablekit.table": tbl.Name(), "tablekit.pages": len(pages), "tablekit.entities": len(all)}
			if tt.segments {
				wantRoot["tablekit.segments"], wantRoot["tablekit.parallelism"] = 3, 2
			}
			checkAttrs(t, root, wantRoot)
			if root.Parent != 0 || !root.Ended || root.Status != tracing.SpanStatusUnset {
				t.Errorf("run span: parent %d, ended %v, status %v; want a root, ended, unset", root.Parent, root.Ended, root.Status)
			}
			entities, retried, ends := 0, 0, 0
			for _, p := range pages {
				entities += p.Attrs["tablekit.entities"].(int)
				if p.Attrs["tablekit.continuation"] == false {
					ends++
				}
				if _, ok := p.Attrs["tablekit.segment"]; ok != tt.segments {
					t.Errorf("page %v: has a segment: %v, want %v", p.Attrs, ok, tt.segments)
				}
				if p.Attrs["tablekit.attempts"] == 2 && len(p.Events) == 1 && p.Events[0].Name == "throttled" {
					retried++
				} else if p.Attrs["tablekit.attempts"] != 1 || len(p.Events) != 0 {
					t.Errorf("page attempts %v, events %+v; want 1 and none, or 2 and one throttled", p.Attrs["tablekit.attempts"], p.Events)
				}
			}
			wantEnds := 1
			if tt.segments {
				wantEnds = len(segments)
			}
			if entities != len(all) || retried != 1 || ends != wantEnds {
				t.Errorf("pages: %d entities, %d retried, %d without continuation; want %d, 1, %d", entities, retried, ends, len(all), wantEnds)
			}
		})
	}
}

// TestQuerySpanError: a failed run has the error on its span and the page's.
func TestQuerySpanError(t *testing.T) {
	rec := &testenv.Tracer{}
	svc := newService(t, "", &table.Options{Azcore: azcore.ClientOptions{TracingProvider: rec.Provider()}})
	tbl, err := table.New[item](svc, testenv.TableName(t)) // never created
	if err != nil {
		t.Fatal(err)
	}
	_, err = Collect(New(tbl).All(context.Background()))
	if !errors.Is(err, tablekit.ErrTableNotFound) {
		t.Fatalf("query of a missing table: %v, want tablekit.ErrTableNotFound", err)
	}
	root := rec.Named("query.Cursor.All")[0]
	page := rec.Children(root.ID, "query.page")[0]
	for _, s := range []testenv.Span{root, page} {
		if s.Status != tracing.SpanStatusError || s.StatusDesc != err.Error() || !s.Ended {
			t.Errorf("%s: status %v %q, ended %v; want error %q, ended", s.Name, s.Status, s.StatusDesc, s.Ended, err)
		}
	}
	checkAttrs(t, root, map[string]any{"tablekit.pages": 0, "tablekit.entities": 0})
}

func checkAttrs(t *testing.T, s testenv.Span, want map[string]any) {
	t.Helper()
	for k, v := range want {
		if got := s.Attrs[k]; got != v {
			t.Errorf("%s: %s = %v (%T), want %v (%T)", s.Name, k, got, got, v, v)
		}
	}
}
