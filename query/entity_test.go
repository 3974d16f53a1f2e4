package query

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/table"
)

type circle struct {
	PartitionKey string
	RowKey       string
	Kind         string
	R            float64
}

type label struct {
	PartitionKey string
	RowKey       string
	Kind         string
	Text         string
	Size         int64
}

// mixedRows is a table of circles and labels, half each, in 6 partitions.
func mixedRows(t *testing.T) (*table.Table[table.Entity], map[string]any) {
	t.Helper()
	tbl := testenv.NewTable[table.Entity](t, newService(t, "", nil))
	want := map[string]any{}
	var rows []table.Entity
	for i := range 120 {
		pk, rk := fmt.Sprintf("p%d", i%6), fmt.Sprintf("r%03d", i)
		var v any = circle{pk, rk, "circle", float64(i) + 0.25}
		if i%2 == 1 {
			v = label{pk, rk, "label", fmt.Sprint("t", i), int64(i) << 33}
		}
		var e table.Entity
		var err error
		switch v := v.(type) {
		case circle:
			e, err = testenv.Convert[table.Entity](v)
		case label:
			e, err = testenv.Convert[table.Entity](v)
		}
		if err != nil {
			t.Fatal(err)
		}
		want[pk+"/"+rk] = v
		rows = append(rows, e)
	}
	load(t, tbl, rows)
	return tbl, want
}

// TestEntityParallelMixedRows scans a table of two entity types in
// parallel and decodes each row into the type its Kind names.
func TestEntityParallelMixedRows(t *testing.T) {
	tbl, want := mixedRows(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := New(tbl).PageSize(7).Parallel(PartitionSegments("p0", "p1", "p2", "p3", "p4", "p5"), &ParallelOptions{Parallelism: 3})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]any{}
	for e, err := range c.All(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		var v any
		switch e.Properties["Kind"] {
		case "circle":
			v, err = testenv.Convert[circle](e)
		case "label":
			v, err = testenv.Convert[label](e)
		default:
			t.Fatalf("%s/%s: unknown Kind %v", e.PartitionKey, e.RowKey, e.Properties["Kind"])
		}
		if err != nil {
			t.Fatal(err)
		}
		got[e.PartitionKey+"/"+e.RowKey] = v
	}
	if len(got) != len(want) {
		t.Fatalf("rows: got %d, want %d", len(got), len(want))
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: got %#v, want %#v", k, got[k], w)
		}
	}
}

// TestEntityQueryFeatures runs a filtered, projected, paged and resumed
// query over Table[Entity].
func TestEntityQueryFeatures(t *testing.T) {
	tbl, _ := mixedRows(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	q := New(tbl).Where(Property("Kind").Eq(String("label"))).Where(Property("Size").Ge(Int64(int64(100) << 33))).Select("Size").PageSize(5)
	cur, err := q.Resume("")
	if err != nil {
		t.Fatal(err)
	}
	var seen int
	var token string
	for e, err := range cur.All(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		seen++
		if _, ok := e.Properties["Text"]; ok {
			t.Errorf("%s: got Text, want only the selected Size", e.RowKey)
		}
		if n, ok := e.Properties["Size"].(int64); !ok || n < 100<<33 {
			t.Errorf("%s: Size got %T %v, want int64 >= 100<<33", e.RowKey, e.Properties["Size"], e.Properties["Size"])
		}
		if seen == 4 {
			token = cur.Token()
			break
		}
	}
	rest, err := q.Resume(token)
	if err != nil {
		t.Fatal(err)
	}
	all, err := Collect(rest.All(ctx))
	if err != nil {
		t.Fatal(err)
	}
	// Odd i from 101 to 119: 10 labels.
	if got, want := seen+len(all), 10; got != want {
		t.Errorf("labels with Size >= 100<<33: got %d, want %d", got, want)
	}
}
