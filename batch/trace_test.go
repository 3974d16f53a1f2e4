package batch_test

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/tracing"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/batch"
	"github.com/tablekit/tablekit/devtools/faults"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/retry"
	"github.com/tablekit/tablekit/table"
)

// tracedTable is a table reached through a fault proxy, with a recording
// tracer as its TracingProvider.
func tracedTable(t *testing.T) (*table.Table[item], *faults.Proxy, *testenv.Tracer) {
	t.Helper()
	direct := newRecordedTable(t, nil, nil)
	env := testenv.Azurite(t)
	px, err := faults.Start(env.Endpoint[:strings.LastIndex(env.Endpoint, "/")])
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = px.Close() })
	rec := &testenv.Tracer{}
	svc, err := table.NewServiceWithSharedKey(px.Endpoint(env.Account), env.Account, env.Key, &table.Options{
		Retry:  &retry.Policy{InitialInterval: 10 * time.Millisecond, MaxAttempts: 5},
		Azcore: azcore.ClientOptions{TracingProvider: rec.Provider()},
	})
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := table.New[item](svc, direct.Name())
	if err != nil {
		t.Fatal(err)
	}
	return tbl, px, rec
}

// TestWriteSpans: a Write is one span with a child per transaction, the
// throttled retries are events of the transactions that had them, and
// aztables' own spans nest under tablekit's.
func TestWriteSpans(t *testing.T) {
	tbl, px, rec := tracedTable(t)
	const throttled = 2
	px.SetRules(faults.Rule{Match: faults.PathContains("$batch"), Times: throttled,
		Fault: faults.Status(http.StatusServiceUnavailable, "ServerBusy", nil)})
	var ops []batch.Op[item]
	for i := range 250 {
		ops = append(ops, batch.Op[item]{Entity: item{PartitionKey: fmt.Sprintf("p%d", i%3), RowKey: fmt.Sprintf("r%04d", i), N: int64(i)}})
	}
	sum, err := batch.Write(testenv.Ctx(t), tbl, ops, &batch.WriteOptions{Retry: fastRetry})
	if err != nil {
		t.Fatalf("Write: %v (%v)", err, sum)
	}

	writes := rec.Named("batch.Write")
	if len(writes) != 1 {
		t.Fatalf("%d batch.Write spans, want 1", len(writes))
	}
	w := writes[0]
	wantAttrs := map[string]any{
		"tablekit.table": tbl.Name(), "tablekit.ops": 250, "tablekit.committed": 250,
		"tablekit.transactions": sum.Chunks, "tablekit.retries": throttled, "tablekit.outcome": "committed",
	}
	checkAttrs(t, "batch.Write", w, wantAttrs)
	if w.Parent != 0 || !w.Ended || w.Status != tracing.SpanStatusUnset {
		t.Errorf("batch.Write: parent %d, ended %v, status %v; want a root, ended, unset", w.Parent, w.Ended, w.Status)
	}

	txs := rec.Children(w.ID, "batch.transaction")
	if len(txs) != sum.Chunks || len(txs) != len(rec.Named("batch.transaction")) {
		t.Fatalf("%d transaction spans under the Write (%d in all), want %d", len(txs), len(rec.Named("batch.transaction")), sum.Chunks)
	}
	nops, retries, events := 0, 0, 0
	for _, tx := range txs {
		nops += tx.Attrs["tablekit.ops"].(int)
		retries += tx.Attrs["tablekit.attempts"].(int) - 1
		for _, e := range tx.Events {
			if e.Name != "throttled" || e.Attrs["http.response.status_code"] != 503 || e.Attrs["tablekit.error_code"] != "ServerBusy" {
				t.Errorf("transaction event %s %v, want throttled with 503 ServerBusy", e.Name, e.Attrs)
			}
			events++
		}
		if !strings.HasPrefix(tx.Attrs["tablekit.partition"].(string), "p") || tx.Attrs["tablekit.bytes"].(int) <= 0 ||
			tx.Attrs["tablekit.outcome"] != "Committed" || !tx.Ended || tx.Status != tracing.SpanStatusUnset {
			t.Errorf("transaction span %+v, want a partition, bytes, outcome Committed, ended, no error", tx)
		}
		if n := len(rec.Children(tx.ID, "Client.SubmitTransaction")); n != tx.Attrs["tablekit.attempts"] {
			t.Errorf("transaction with %v attempts has %d aztables spans under it", tx.Attrs["tablekit.attempts"], n)
		}
	}
	if nops != 250 || retries != throttled || events != throttled {
		t.Errorf("transactions hold %d ops, %d retries, %d events; want 250, %d, %d", nops, retries, events, throttled, throttled)
	}
}

// TestWriteSpanError: a refused transaction is an error on its span and on
// the Write's.
func TestWriteSpanError(t *testing.T) {
	tbl, _, rec := tracedTable(t)
	ctx := testenv.Ctx(t)
	if _, err := tbl.Add(ctx, item{PartitionKey: "p", RowKey: "taken"}); err != nil {
		t.Fatal(err)
	}
	ops := []batch.Op[item]{
		{Kind: batch.Add, Entity: item{PartitionKey: "p", RowKey: "free"}},
		{Kind: batch.Add, Entity: item{PartitionKey: "p", RowKey: "taken"}},
	}
	_, err := batch.Write(ctx, tbl, ops, nil)
	if !errors.Is(err, tablekit.ErrAlreadyExists) {
		t.Fatalf("Write: %v, want tablekit.ErrAlreadyExists", err)
	}
	w := rec.Named("batch.Write")[0]
	checkAttrs(t, "batch.Write", w, map[string]any{"tablekit.ops": 2, "tablekit.committed": 0, "tablekit.transactions": 1, "tablekit.outcome": "incomplete"})
	if w.Status != tracing.SpanStatusError || w.StatusDesc != err.Error() {
		t.Errorf("batch.Write status %v %q, want error %q", w.Status, w.StatusDesc, err)
	}
	tx := rec.Children(w.ID, "batch.transaction")[0]
	checkAttrs(t, "batch.transaction", tx, map[string]any{"tablekit.partition": "p", "tablekit.ops": 2, "tablekit.attempts": 1, "tablekit.outcome": "Failed"})
	if tx.Status != tracing.SpanStatusError || !strings.Contains(tx.StatusDesc, "EntityAlreadyExists") {
		t.Errorf("transaction status %v %q, want an error naming EntityAlreadyExists", tx.Status, tx.StatusDesc)
	}
}

// TestSubmitSpan: a Transaction submitted on its own has a span too.
func TestSubmitSpan(t *testing.T) {
	tbl, _, rec := tracedTable(t)
	tx := batch.New(tbl).Upsert(item{PartitionKey: "p", RowKey: "a"}, table.Replace).Upsert(item{PartitionKey: "p", RowKey: "b"}, table.Merge)
	if _, err := tx.Submit(testenv.Ctx(t)); err != nil {
		t.Fatal(err)
	}
	got := rec.Named("batch.Transaction.Submit")
	if len(got) != 1 {
		t.Fatalf("%d submit spans, want 1", len(got))
	}
	checkAttrs(t, "batch.Transaction.Submit", got[0], map[string]any{
		"tablekit.partition": "p", "tablekit.ops": 2, "tablekit.bytes": tx.Size(), "tablekit.attempts": 1, "tablekit.outcome": "Committed",
	})
}

func checkAttrs(t *testing.T, name string, s testenv.Span, want map[string]any) {
	t.Helper()
	for k, v := range want {
		if got := s.Attrs[k]; got != v {
			t.Errorf("%s: %s = %v (%T), want %v (%T)", name, k, got, got, v, v)
		}
	}
}
