package batch_test

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/batch"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/table"
)

type order struct {
	PartitionKey string
	RowKey       string
	Kind         string
	Total        float64
	Placed       time.Time
}

type line struct {
	PartitionKey string
	RowKey       string
	Kind         string
	SKU          string
	Qty          int32
}

// TestEntityTransactionMixedTypes writes an order and its lines, two Go
// types, in one atomic transaction of converted entities.
func TestEntityTransactionMixedTypes(t *testing.T) {
	ctx := testenv.Ctx(t)
	items := newRecordedTable(t, nil, nil)
	dyn, err := table.As[table.Entity](items)
	if err != nil {
		t.Fatal(err)
	}
	o := order{PartitionKey: "c1", RowKey: "o1", Kind: "order", Total: 12.5, Placed: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)}
	lines := []line{{"c1", "o1-l1", "line", "A", 2}, {"c1", "o1-l2", "line", "B", 1}}
	tx := batch.New(dyn)
	e, err := testenv.Convert[table.Entity](o)
	if err != nil {
		t.Fatal(err)
	}
	tx.Add(e)
	for _, l := range lines {
		e, err := testenv.Convert[table.Entity](l)
		if err != nil {
			t.Fatal(err)
		}
		tx.Add(e)
	}
	if _, err := tx.Submit(ctx); err != nil {
		t.Fatal(err)
	}
	orders, _ := table.As[order](items)
	gotOrder, err := orders.Get(ctx, "c1", "o1", nil)
	if err != nil || !reflect.DeepEqual(gotOrder, o) {
		t.Errorf("order: got %+v, %v, want %+v", gotOrder, err, o)
	}
	lineTbl, _ := table.As[line](items)
	for _, want := range lines {
		got, err := lineTbl.Get(ctx, want.PartitionKey, want.RowKey, nil)
		if err != nil || got != want {
			t.Errorf("line: got %+v, %v, want %+v", got, err, want)
		}
	}
}

// TestEntityTransactionFailureStoresNothing sends a transaction of two Go
// types whose second operation adds an entity that exists: the service
// refuses it, the error names that operation and the service's code, and
// neither entity of the transaction is stored.
func TestEntityTransactionFailureStoresNothing(t *testing.T) {
	ctx := testenv.Ctx(t)
	rec := &batchRecorder{}
	items := newRecordedTable(t, rec, nil)
	dyn, err := table.As[table.Entity](items)
	if err != nil {
		t.Fatal(err)
	}
	lineTbl, err := table.As[line](items)
	if err != nil {
		t.Fatal(err)
	}
	stored := line{"c1", "o1-l1", "line", "A", 2}
	if _, err := lineTbl.Add(ctx, stored); err != nil {
		t.Fatal(err)
	}
	newOrder, err := testenv.Convert[table.Entity](order{PartitionKey: "c1", RowKey: "o2", Kind: "order", Total: 3})
	if err != nil {
		t.Fatal(err)
	}
	dup, err := testenv.Convert[table.Entity](line{"c1", "o1-l1", "line", "B", 9}) // its keys exist
	if err != nil {
		t.Fatal(err)
	}
	callsBefore, _ := rec.snapshot()

	_, err = batch.New(dyn).Add(newOrder).Add(dup).Submit(ctx)

	var se *tablekit.ServiceError
	if !errors.As(err, &se) || !errors.Is(err, tablekit.ErrAlreadyExists) {
		t.Fatalf("got %v, want a *tablekit.ServiceError matching tablekit.ErrAlreadyExists", err)
	}
	if got, want := fmt.Sprint(se.Operation, " ", se.Index, " ", se.StatusCode, " ", se.Code), "transaction 1 409 EntityAlreadyExists"; got != want {
		t.Errorf("operation, index, status, code: got %q, want %q", got, want)
	}
	calls, batches := rec.snapshot()
	if got, want := calls-callsBefore, 1; got != want {
		t.Errorf("requests sent: got %d, want %d (one $batch)", got, want)
	}
	if len(batches) != 1 || batches[0].ops != 2 || batches[0].rk != "o2" {
		t.Errorf("$batch requests: got %+v, want one of 2 operations starting at o2", batches)
	}
	orders, err := table.As[order](items)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := orders.Get(ctx, "c1", "o2", nil); !errors.Is(err, tablekit.ErrNotFound) {
		t.Errorf("order o2: got %+v, %v; want tablekit.ErrNotFound (rolled back)", got, err)
	}
	if got, err := lineTbl.Get(ctx, "c1", "o1-l1", nil); err != nil || got != stored {
		t.Errorf("line o1-l1: got %+v, %v; want %+v unchanged", got, err, stored)
	}
}

func TestEntityBulkWrite(t *testing.T) {
	ctx := testenv.Ctx(t)
	items := newRecordedTable(t, nil, nil)
	dyn, _ := table.As[table.Entity](items)
	var ops []batch.Op[table.Entity]
	for i := range 250 {
		e := table.NewEntity(string(rune('a'+i%5)), table.PadUint(uint64(i), 4))
		e.Properties["N"] = int64(i)
		e.Properties["S"] = "s"
		ops = append(ops, batch.Op[table.Entity]{Kind: batch.Upsert, Entity: e, Mode: table.Replace})
	}
	sum, err := batch.Write(ctx, dyn, ops, nil)
	if err != nil {
		t.Fatalf("write: %v (%v)", err, sum)
	}
	got := readAll(t, items)
	if len(got) != len(ops) {
		t.Fatalf("stored: got %d entities, want %d", len(got), len(ops))
	}
	for _, op := range ops {
		g := got[op.Entity.PartitionKey+"/"+op.Entity.RowKey]
		if g.N != op.Entity.Properties["N"].(int64) || g.S != "s" {
			t.Errorf("%s/%s: got N=%d S=%q, want N=%d S=s", op.Entity.PartitionKey, op.Entity.RowKey, g.N, g.S, op.Entity.Properties["N"])
		}
	}
}
