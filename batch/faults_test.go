package batch_test

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/batch"
	"github.com/tablekit/tablekit/devtools/faults"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/retry"
	"github.com/tablekit/tablekit/table"
)

// proxied returns the test's table (direct handle, for checking) and a
// handle on the same table through a fault proxy.
func proxied(t *testing.T) (direct, viaProxy *table.Table[item], px *faults.Proxy) {
	t.Helper()
	return proxiedWith(t, &table.Options{Retry: &retry.Policy{InitialInterval: 10 * time.Millisecond, MaxInterval: 200 * time.Millisecond, MaxAttempts: 10}})
}

// proxiedWith is proxied with the client options of the proxied handle.
func proxiedWith(t *testing.T, o *table.Options) (direct, viaProxy *table.Table[item], px *faults.Proxy) {
	t.Helper()
	direct = newRecordedTable(t, nil, nil)
	env := testenv.Azurite(t)
	px, err := faults.Start(env.Endpoint[:strings.LastIndex(env.Endpoint, "/")])
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = px.Close() })
	svc, err := table.NewServiceWithSharedKey(px.Endpoint(env.Account), env.Account, env.Key, o)
	if err != nil {
		t.Fatal(err)
	}
	viaProxy, err = table.New[item](svc, direct.Name())
	if err != nil {
		t.Fatal(err)
	}
	return direct, viaProxy, px
}

var fastRetry = &retry.Policy{InitialInterval: 10 * time.Millisecond, MaxInterval: 200 * time.Millisecond, MaxAttempts: 12}

// TestSoakWriteThroughFaults: with 10% of transactions answered 503 and 2%
// committed but their response lost, the bulk load completes, every fault
// costs exactly one retry, and every entity is exactly as last written.
// (TestSoakUpserts is the large soak with every kind of fault.) 5,000
// entities; 3,000 under -short or -race.
func TestSoakWriteThroughFaults(t *testing.T) {
	direct, viaProxy, px := proxied(t)
	n := testenv.Size(5000, 3000)
	ops := load(n, 25, 4)
	// Write a fifth of the entities a second time, differently, later on.
	for i := 0; i < n; i += 5 {
		e := ops[i].Entity
		e.N, e.S, e.B = -e.N, "second "+e.S, nil
		ops = append(ops, batch.Op[item]{Entity: e})
	}
	px.SetSeed(42)
	isBatch := faults.PathContains("$batch")
	px.SetRules(
		faults.Rule{Match: isBatch, Probability: 0.10, Fault: faults.Status(http.StatusServiceUnavailable, "ServerBusy", nil)},
		faults.Rule{Match: isBatch, Probability: 0.02, Fault: faults.DropAfterForward()},
	)
	plog := &progressLog{t: t}
	start := time.Now()
	sum, err := batch.Write(testenv.Context(t, 3*time.Minute), viaProxy, ops, &batch.WriteOptions{Retry: fastRetry, Progress: plog.record})
	if err != nil {
		t.Fatalf("Write through faults: %v (summary %+v)", err, sum)
	}
	injected := px.Injected()
	t.Logf("%d operations in %d transactions in %v; %d faults injected, %d retries",
		sum.Ops, sum.Chunks, time.Since(start).Round(time.Millisecond), injected, sum.Retries)
	if injected == 0 || sum.Retries < injected {
		t.Errorf("%d faults injected, %d retries: every fault costs one retry", injected, sum.Retries)
	}
	if f := plog.last(); f.Retries != sum.Retries || f.Ops != len(ops) || f.Failed != 0 {
		t.Errorf("last Progress %+v", f)
	}
	px.SetRules()
	checkStored(t, direct, lastWritten(ops))
}

// TestWriteAfterLostResponse: a transaction that committed but whose
// response was lost is retried; upserts then succeed, adds are reported as
// maybe committed, with the retry's 409 and the lost attempt's reset.
func TestWriteAfterLostResponse(t *testing.T) {
	tests := []struct {
		kind      batch.OpKind
		wantState batch.State
		wantErr   error
	}{
		{batch.Upsert, batch.Committed, nil},
		{batch.Add, batch.Unknown, tablekit.ErrMaybeCommitted},
	}
	for _, tt := range tests {
		t.Run(tt.kind.String(), func(t *testing.T) {
			direct, viaProxy, px := proxied(t)
			var ops []batch.Op[item]
			for i := range 50 {
				ops = append(ops, batch.Op[item]{Kind: tt.kind, Entity: item{PartitionKey: "p", RowKey: fmt.Sprint(i), N: int64(i)}})
			}
			px.SetRules(faults.Rule{Match: faults.PathContains("$batch"), Times: 1, Fault: faults.DropAfterForward()})
			sum, err := batch.Write(testenv.Ctx(t), viaProxy, ops, &batch.WriteOptions{Retry: fastRetry})
			if tt.wantErr == nil && err != nil || tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Fatalf("Write: %v, want %v", err, tt.wantErr)
			}
			if sum.State(0) != tt.wantState || sum.Retries != 1 {
				t.Errorf("State %v, %d retries; want %v after 1 retry", sum.State(0), sum.Retries, tt.wantState)
			}
			if tt.wantErr != nil {
				var amb *tablekit.MaybeCommittedError
				var re *azcore.ResponseError
				if len(sum.Incomplete) != 1 || !errors.As(sum.Incomplete[0].Err, &amb) || amb.Operation != "transaction" ||
					!errors.As(sum.Incomplete[0].Err, &re) || re.StatusCode != http.StatusConflict ||
					!errors.Is(sum.Incomplete[0].Err, syscall.ECONNRESET) || errors.Is(sum.Incomplete[0].Err, tablekit.ErrAlreadyExists) {
					t.Errorf("Incomplete %+v: want an AmbiguousError with the retry's 409 and the reset inside", sum.Incomplete)
				}
			}
			// Either way the first attempt committed everything.
			checkStored(t, direct, lastWritten(ops))
		})
	}
}

// TestTransactionRetriedByPipeline: a single transaction answered 503 is
// retried by the client's pipeline (table.Options.Retry).
func TestTransactionRetriedByPipeline(t *testing.T) {
	direct, viaProxy, px := proxied(t)
	px.SetRules(faults.Rule{Match: faults.PathContains("$batch"), Times: 2, Fault: faults.Status(http.StatusServiceUnavailable, "ServerBusy", nil)})
	res, err := batch.New(viaProxy).Add(item{PartitionKey: "p", RowKey: "a"}).Add(item{PartitionKey: "p", RowKey: "b"}).Submit(testenv.Ctx(t))
	if err != nil || len(res) != 2 {
		t.Fatalf("Submit: %v", err)
	}
	if got := px.Count("POST /" + testenv.Azurite(t).Account + "/$batch"); got != 3 {
		t.Errorf("%d $batch requests, want 3", got)
	}
	checkStored(t, direct, map[string]item{"p/a": {PartitionKey: "p", RowKey: "a"}, "p/b": {PartitionKey: "p", RowKey: "b"}})
}
