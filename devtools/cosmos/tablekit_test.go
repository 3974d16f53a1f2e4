package cosmos_test

import (
	"fmt"
	"testing"

	"github.com/tablekit/tablekit/batch"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/retry"
	"github.com/tablekit/tablekit/table"
)

type item struct {
	PartitionKey, RowKey string
	N                    int64
}

// TestTablekitThroughStandIn: tablekit's public API reaches the stand-in
// with Client() as table.Options.Transport, under the Cosmos DB host name,
// for point reads and writes (a merge included) and the bulk writer.
func TestTablekitThroughStandIn(t *testing.T) {
	env, cs, _ := standIn(t, nil)
	hc := cs.Client()
	t.Cleanup(hc.CloseIdleConnections)
	svc, err := table.NewServiceWithSharedKey(cs.Endpoint(), env.Account, env.Key, &table.Options{Transport: hc, Retry: &retry.Policy{MaxAttempts: 1}})
	if err != nil {
		t.Fatal(err)
	}
	tbl := testenv.NewTable[item](t, svc)
	ctx := testenv.Ctx(t)
	if _, err := tbl.Add(ctx, item{PartitionKey: "p", RowKey: "a", N: 1}); err != nil {
		t.Fatalf("add: %v", err)
	}
	if _, err := tbl.Upsert(ctx, item{PartitionKey: "p", RowKey: "a", N: 2}, table.Merge); err != nil {
		t.Fatalf("upsert merge: %v", err)
	}
	if got, err := tbl.Get(ctx, "p", "a", nil); err != nil || got.N != 2 {
		t.Fatalf("get: got %+v, %v, want N=2", got, err)
	}
	var ops []batch.Op[item]
	for i := range 20 {
		ops = append(ops, batch.Op[item]{Entity: item{PartitionKey: "q", RowKey: fmt.Sprintf("%02d", i), N: int64(i)}})
	}
	if _, err := batch.Write(ctx, tbl, ops, nil); err != nil {
		t.Fatalf("bulk write: %v", err)
	}
	if got, err := tbl.Get(ctx, "q", "19", nil); err != nil || got.N != 19 {
		t.Errorf("after the bulk write: got %+v, %v, want N=19", got, err)
	}
	if got := cs.Count("POST /$batch"); got != 1 {
		t.Errorf("transactions: got %d, want 1", got)
	}
	if err := tbl.Delete(ctx, "p", "a", "*"); err != nil {
		t.Errorf("delete: %v", err)
	}
}
