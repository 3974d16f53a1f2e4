package query

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/table"
)

// summary is the projection of item that a list shows.
type summary struct {
	PartitionKey string
	RowKey       string
	S            string
	Big          int64
	table.Meta
}

// TestProject: a query of table.As[U] decodes into a smaller struct; a
// stored type the field cannot hold is tablekit.ErrDecode.
func TestProject(t *testing.T) {
	svc := newService(t, "", nil)
	tbl := testenv.NewTable[item](t, svc)
	var rows []item
	for r := range 12 {
		rows = append(rows, makeItem(1, r))
	}
	load(t, tbl, rows)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	narrow, err := table.As[summary](tbl)
	if err != nil {
		t.Fatal(err)
	}
	base := New(narrow).Where(Partition("p01"))
	for _, q := range []Query[summary]{
		base.Select("S", "Big"),
		base, // every property: summary's are decoded, the others ignored
	} {
		got, err := Collect(q.PageSize(5).All(ctx))
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(rows) {
			t.Fatalf("rows: got %d, want %d", len(got), len(rows))
		}
		for i, g := range got {
			w := rows[i]
			if g.RowKey != w.RowKey || g.S != w.S || g.Big != w.Big || g.ETag == "" {
				t.Errorf("%s: got %+v, want S=%q Big=%d and an ETag", w.RowKey, g, w.S, w.Big)
			}
		}
	}
	one, err := Collect(New(narrow).Where(Point("p01", "r0003")).Select("S", "Big").All(ctx))
	if err != nil || len(one) != 1 || one[0].Big != rows[3].Big {
		t.Errorf("point: got %+v, %v, want row r0003", one, err)
	}

	type wrongType struct {
		PartitionKey, RowKey string
		Big                  string
	}
	type widened struct {
		PartitionKey, RowKey string
		N                    int64
	}
	wrong, err := table.As[wrongType](tbl)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Collect(New(wrong).Where(Partition("p01")).Select("Big").All(ctx)); !errors.Is(err, tablekit.ErrDecode) || !strings.Contains(err.Error(), "Big") {
		t.Errorf("wrong type: got %v, want tablekit.ErrDecode naming Big", err)
	}
	wide, err := table.As[widened](tbl)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := Collect(New(wide).Where(Partition("p01")).Select("N").All(ctx)); err != nil || len(got) != len(rows) || got[5].N != 5 {
		t.Errorf("widened: got %d rows, %v, want %d with N", len(got), err, len(rows))
	}
}
