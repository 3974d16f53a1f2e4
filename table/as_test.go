package table_test

import (
	"bytes"
	"testing"

	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/internal/core"
	"github.com/tablekit/tablekit/table"
)

// A handle made with As is the same table in every respect but its type:
// its writes send the bytes tablekit encoded for the new type, on the
// table's own pipeline, and its reads decode into it.
func TestAsKeepsTheTable(t *testing.T) {
	env := testenv.Azurite(t)
	tr := &bodies{next: testenv.TunedClient()}
	typed := testenv.NewTable[keyed](t, env.NewService(t, &table.Options{Transport: tr}))
	dyn, err := table.As[table.Entity](typed)
	if err != nil {
		t.Fatal(err)
	}
	ctx := testenv.Ctx(t)
	e := table.NewEntity("p", "r")
	e.Properties["N"] = int64(7)
	want, err := dyn.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dyn.Add(ctx, e); err != nil {
		t.Fatal(err)
	}
	if got := tr.last(); !bytes.Equal(got, want) {
		t.Errorf("Add through As sent %s, want %s", got, want)
	}
	got, err := dyn.Get(ctx, "p", "r", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := got.Properties["N"], int64(7); got != want {
		t.Errorf("N: got %v (%T), want %v", got, got, want)
	}
	if dyn.Name() != typed.Name() || (*core.Table)(dyn).PoolSize() != (*core.Table)(typed).PoolSize() || dyn.Client() != typed.Client() {
		t.Errorf("As: name %q, pool %d; want the table's %q, %d and its client", dyn.Name(), (*core.Table)(dyn).PoolSize(), typed.Name(), (*core.Table)(typed).PoolSize())
	}
}
