package query

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/table"
)

// TestPagesKeepNoBody: a page's body buffer is given back for a later
// page's reply once the page is decoded, so nothing decoded may share it.
// Every entity of many small pages, read serially and four at a time, kept
// until the scan is over, equals what was written: a string or value that
// shared a recycled buffer would by then hold a later page's bytes. So do
// the properties of a table.Entity and a table.RawEntity.
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
	// The dynamic types keep names and values of their own: each entity's
	// S, read back, is the one written.
	wantS := func(t *testing.T, pk, rk, got string) {
		t.Helper()
		if w := want[pk+"/"+rk].S; got != w {
			t.Errorf("%s/%s: got S %q, want %q", pk, rk, got, w)
		}
	}
	t.Run("entity", func(t *testing.T) {
		et, err := table.New[table.Entity](svc, tbl.Name())
		if err != nil {
			t.Fatal(err)
		}
		got, err := Collect(New(et).PageSize(6).All(ctx))
		if err != nil || len(got) != len(all) {
			t.Fatalf("got %d entities, %v; want %d", len(got), err, len(all))
		}
		for _, e := range got {
			s, _ := e.Properties["S"].(string)
			wantS(t, e.PartitionKey, e.RowKey, s)
		}
	})
	t.Run("raw", func(t *testing.T) {
		rt, err := table.New[table.RawEntity](svc, tbl.Name())
		if err != nil {
			t.Fatal(err)
		}
		got, err := Collect(New(rt).PageSize(6).All(ctx))
		if err != nil || len(got) != len(all) {
			t.Fatalf("got %d entities, %v; want %d", len(got), err, len(all))
		}
		for _, e := range got {
			var props struct{ S string }
			if err := json.Unmarshal(e.Properties, &props); err != nil {
				t.Fatalf("%s/%s: %v", e.PartitionKey, e.RowKey, err)
			}
			wantS(t, e.PartitionKey, e.RowKey, props.S)
		}
	})
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
