package query

import (
	"context"
	"fmt"
	"testing"

	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/table"
)

// TestPagesKeepNoBody: a page's body buffer is given back for a later
// page's reply once the page is decoded, so nothing decoded may share it.
// Every entity of many small pages, read serially and four at a time, kept
// until the scan is over, equals what was written: a string or value that
// shared a recycled buffer would by then hold a later page's bytes.
func TestPagesKeepNoBody(t *testing.T) {
	ctx := context.Background()
	svc := newService(t, "", nil)
	tbl := testenv.NewTable[item](t, svc)
	var all []item
	for p := range 4 {
		for r := range 60 {
			it := makeItem(p, r)
			it.S = fmt.Sprintf("entity %02d/%04d, long enough to share the page's copy: %0600d", p, r, p*1000+r)
			all = append(all, it)
		}
	}
	load(t, tbl, all)
	want := make(map[string]item, len(all))
	for _, it := range all {
		want[it.PartitionKey+"/"+it.RowKey] = it
	}
	tests := []struct {
		name string
		read func() ([]item, error)
	}{
		{"serial", func() ([]item, error) { return Collect(New(tbl).PageSize(7).All(ctx)) }},
		{"parallel", func() ([]item, error) {
			c, err := New(tbl).PageSize(5).Parallel(PartitionSegments(partitionKeys(4)...), &ParallelOptions{Parallelism: 4})
			if err != nil {
				return nil, err
			}
			return Collect(c.All(ctx))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.read()
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(all) {
				t.Fatalf("got %d entities, want %d", len(got), len(all))
			}
			for _, g := range got {
				w, ok := want[g.PartitionKey+"/"+g.RowKey]
				g.Meta = table.Meta{}
				if !ok || fmt.Sprint(g) != fmt.Sprint(w) {
					t.Errorf("got %+v, want %+v", g, w)
				}
			}
		})
	}
}
