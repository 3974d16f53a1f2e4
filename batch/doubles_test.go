package batch_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/batch"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/table"
)

// measure holds an Edm.Double.
type measure struct {
	PartitionKey, RowKey string
	V                    float64
	table.Meta
}

// TestDoubleSpecials: NaN and the infinities go through a transaction and
// the bulk writer, typed and as table.Entity, and read back as written.
func TestDoubleSpecials(t *testing.T) {
	ctx := testenv.Ctx(t)
	items := newRecordedTable(t, nil, nil)
	typed, err := table.As[measure](items)
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := table.As[table.Entity](items)
	if err != nil {
		t.Fatal(err)
	}
	values := map[string]float64{"nan": math.NaN(), "inf": math.Inf(1), "ninf": math.Inf(-1), "one": 1}
	tx := batch.New(typed)
	var ops []batch.Op[table.Entity]
	for rk, x := range values {
		tx.Add(measure{PartitionKey: "tx", RowKey: rk, V: x})
		e := table.NewEntity("write", rk)
		e.Properties["V"] = x
		ops = append(ops, batch.Op[table.Entity]{Entity: e})
	}
	if _, err := tx.Submit(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := batch.Write(ctx, dyn, ops, nil); err != nil {
		t.Fatal(err)
	}
	for rk, x := range values {
		for _, pk := range []string{"tx", "write"} {
			got, err := typed.Get(ctx, pk, rk, nil)
			if err != nil || !(got.V == x || (math.IsNaN(got.V) && math.IsNaN(x))) {
				t.Errorf("%s/%s: V = %v, %v; want %v", pk, rk, got.V, err, x)
			}
		}
	}
}

// TestRawEntityMisfitInTransaction: a RawEntity value outside its annotated
// type fails the transaction's validation, naming the operation and the
// property; nothing is sent.
func TestRawEntityMisfitInTransaction(t *testing.T) {
	ctx := testenv.Ctx(t)
	rec := &batchRecorder{}
	items := newRecordedTable(t, rec, nil)
	raw, err := table.As[table.RawEntity](items)
	if err != nil {
		t.Fatal(err)
	}
	before, _ := rec.snapshot()
	_, err = batch.New(raw).
		Add(table.RawEntity{PartitionKey: "p", RowKey: "a", Properties: []byte(`{"N":1}`)}).
		Add(table.RawEntity{PartitionKey: "p", RowKey: "b", Properties: []byte(`{"N@odata.type":"Edm.Int32","N":2147483648}`)}).
		Submit(ctx)
	var ie *tablekit.ValidationError
	var ve *tablekit.ValidationError
	if !errors.As(err, &ie) || ie.Index != 1 || !errors.As(err, &ve) || ve.Field != "N" || !strings.Contains(ve.Detail, "Edm.Int32 value out of range") {
		t.Errorf("err = %v, want an tablekit.ValidationError for operation 1 with a tablekit.ValidationError for N", err)
	}
	if after, _ := rec.snapshot(); after != before {
		t.Errorf("%d requests sent, want none", after-before)
	}
}
