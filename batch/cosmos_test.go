package batch_test

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/batch"
	"github.com/tablekit/tablekit/devtools/cosmos"
	"github.com/tablekit/tablekit/devtools/faults"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/internal/backend"
	"github.com/tablekit/tablekit/retry"
	"github.com/tablekit/tablekit/table"
)

// cosmosBody is Cosmos DB's limit on a transaction's body, inclusive.
var cosmosBody = backend.Of(backend.CosmosDB).MaxTransactionBytes

// cosmosTable opens a table on a Cosmos DB stand-in in front of the test
// emulator; rec, when not nil, records its requests.
func cosmosTable(t *testing.T, rec *batchRecorder, o *table.Options, co *cosmos.Options) (*table.Table[item], *cosmos.Server) {
	t.Helper()
	env := testenv.Azurite(t)
	cs := env.Cosmos(t, co)
	var opts table.Options
	if o != nil {
		opts = *o
	}
	if rec != nil {
		opts.Azcore.PerRetryPolicies = append([]policy.Policy{rec}, opts.Azcore.PerRetryPolicies...)
	}
	return testenv.NewTable[item](t, env.CosmosService(t, cs, &opts)), cs
}

// TestCosmosBulkWrite: on Cosmos DB the bulk writer packs transactions to
// its 2 MiB (not Table Storage's 4 MiB), fills them, and commits
// everything; the stand-in refuses every body over 2 MiB, and refused none.
func TestCosmosBulkWrite(t *testing.T) {
	rec := &batchRecorder{}
	tbl, cs := cosmosTable(t, rec, nil, nil)
	ctx := testenv.Ctx(t)
	parts, per := 2, 16 // about 2.2 MiB a partition: two transactions each
	var ops []batch.Op[item]
	for p := range parts {
		for i := range per {
			s := strings.Repeat(string(rune('a'+i%26)), 30<<10)
			ops = append(ops, batch.Op[item]{Entity: item{PartitionKey: fmt.Sprintf("p%d", p), RowKey: fmt.Sprintf("r%03d", i), N: int64(i), S: s, T: s, B: make([]byte, 60<<10)}})
		}
	}
	sum, err := batch.Write(ctx, tbl, ops, nil)
	if err != nil || sum.Ops != len(ops) {
		t.Fatalf("Write: %d of %d committed, %v", sum.Ops, len(ops), err)
	}
	_, sent := rec.snapshot()
	byPK := map[string][]sentBatch{}
	for _, b := range sent {
		if b.size > cosmosBody {
			t.Errorf("a transaction of %d bytes, over Cosmos DB's %d", b.size, cosmosBody)
		}
		byPK[b.pk] = append(byPK[b.pk], b)
	}
	for pk, bs := range byPK {
		if len(bs) < 2 {
			t.Fatalf("partition %s in %d transaction(s): the test needs more than 2 MiB per partition", pk, len(bs))
		}
		for i, b := range bs[:len(bs)-1] {
			if fill := float64(b.size) / float64(cosmosBody); fill < 0.9 {
				t.Errorf("partition %s transaction %d: %d bytes, %.0f%% of 2 MiB", pk, i, b.size, 100*fill)
			}
		}
	}
	if st := cs.Stats(); st.TooLarge != 0 || st.Refused != 0 {
		t.Errorf("the stand-in refused %d too large and %d others, want none", st.TooLarge, st.Refused)
	}
	got := readAll(t, tbl)
	for _, op := range ops {
		if e, ok := got[op.Entity.PartitionKey+"/"+op.Entity.RowKey]; !ok || !same(e, op.Entity) {
			t.Fatalf("%s/%s not stored as written", op.Entity.PartitionKey, op.Entity.RowKey)
		}
	}
}

// TestCosmosTransactionLimit: a transaction over Cosmos DB's 2 MiB is
// refused before sending; the same operations make one transaction on
// Table Storage.
func TestCosmosTransactionLimit(t *testing.T) {
	tbl, cs := cosmosTable(t, nil, nil, nil)
	st := newRecordedTable(t, nil, nil)
	tx, stx := batch.New(tbl), batch.New(st)
	for i := range 16 {
		e := item{PartitionKey: "p", RowKey: fmt.Sprintf("r%02d", i), S: strings.Repeat("s", 32<<10), T: strings.Repeat("t", 32<<10), B: make([]byte, 64<<10)}
		tx.Upsert(e, table.Replace)
		stx.Upsert(e, table.Replace)
	}
	if stx.Size() <= cosmosBody || stx.Size() >= storageBody {
		t.Fatalf("the test transaction has %d bytes: want between Cosmos DB's and Table Storage's limits", stx.Size())
	}
	ctx := testenv.Ctx(t)
	cs.Reset()
	_, err := tx.Submit(ctx)
	var ie *tablekit.ValidationError
	if !errors.Is(err, tablekit.ErrInvalid) || !errors.As(err, &ie) {
		t.Errorf("on Cosmos DB: got %v, want tablekit.ErrInvalid", err)
	}
	if n := cs.Stats().Requests; n != 0 {
		t.Errorf("on Cosmos DB: %d requests sent, want none", n)
	}
	if _, err := stx.Submit(ctx); err != nil {
		t.Errorf("on Table Storage: %v", err)
	}
}

// retryLog records the delays the retry policy chose.
type retryLog struct {
	mu     sync.Mutex
	delays []time.Duration
}

func (l *retryLog) hook(ev retry.Event) {
	l.mu.Lock()
	l.delays = append(l.delays, ev.Delay)
	l.mu.Unlock()
}

// TestCosmosThrottling: Cosmos DB's 429, with x-ms-retry-after-ms or
// without it, for the whole $batch or inside its 202 reply, is retried
// (after the hinted wait exactly: 20 ms, not the first backoff step of the
// default policy's 500 ms), counted as throttling in Progress and the
// Summary, and everything commits.
func TestCosmosThrottling(t *testing.T) {
	batches := faults.And(faults.Method(http.MethodPost), faults.PathContains("$batch"))
	quick := retry.Policy{InitialInterval: 10 * time.Millisecond, Jitter: -1}
	tests := []struct {
		name      string
		throttle  cosmos.Throttle
		policy    retry.Policy
		wantDelay time.Duration
	}{
		{"429 with x-ms-retry-after-ms", cosmos.Throttle{Match: batches, Times: 3, RetryAfter: 20 * time.Millisecond}, retry.Default(), 20 * time.Millisecond},
		{"429 without a hint", cosmos.Throttle{Match: batches, Times: 3}, quick, 0},
		{"429 inside the 202 reply", cosmos.Throttle{Match: batches, Times: 3, RetryAfter: 20 * time.Millisecond, InBody: true}, retry.Default(), 20 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tbl, cs := cosmosTable(t, nil, nil, nil)
			var rl retryLog
			p := tt.policy
			p.OnRetry = rl.hook
			plog := &progressLog{t: t}
			var ops []batch.Op[item]
			for i := range 250 {
				ops = append(ops, batch.Op[item]{Entity: item{PartitionKey: fmt.Sprintf("p%d", i%2), RowKey: fmt.Sprintf("r%03d", i), N: int64(i)}})
			}
			cs.SetThrottle(tt.throttle)
			sum, err := batch.Write(testenv.Ctx(t), tbl, ops, &batch.WriteOptions{Retry: &p, Progress: plog.record, InFlight: 1})
			if err != nil || sum.Ops != len(ops) {
				t.Fatalf("Write: %d of %d committed: %v", sum.Ops, len(ops), err)
			}
			if st := cs.Stats(); st.Throttled != 3 {
				t.Fatalf("the stand-in throttled %d requests, want 3", st.Throttled)
			}
			if sum.Retries != 3 || sum.Throttled != 3 {
				t.Errorf("Summary: %d retries, %d throttled; want 3 and 3", sum.Retries, sum.Throttled)
			}
			if last := plog.last(); last.Throttled != 3 || !last.Final {
				t.Errorf("last Progress: %+v, want Throttled 3", last)
			}
			if !strings.Contains(sum.String(), "3 retries (3 throttled)") {
				t.Errorf("Summary.String() = %q, want it to say 3 retries (3 throttled)", sum)
			}
			rl.mu.Lock()
			defer rl.mu.Unlock()
			for i, d := range rl.delays {
				want := tt.wantDelay
				if want == 0 {
					want = quick.InitialInterval << i // the backoff, without jitter
				}
				if d != want {
					t.Errorf("retry %d waited %v, want %v", i+1, d, want)
				}
			}
			if got := len(readAll(t, tbl)); got != len(ops) {
				t.Errorf("stored %d entities, want %d", got, len(ops))
			}
		})
	}
}

// TestCosmosThrottledToTheEnd: when the policy gives up on a 429, the
// transaction is Failed (the service refused it: nothing of it is
// committed, and nothing is reported so), the error matches
// tablekit.ErrThrottled, and nothing was stored.
func TestCosmosThrottledToTheEnd(t *testing.T) {
	batches := faults.And(faults.Method(http.MethodPost), faults.PathContains("$batch"))
	for _, inBody := range []bool{false, true} {
		t.Run(fmt.Sprintf("in body %v", inBody), func(t *testing.T) {
			tbl, cs := cosmosTable(t, nil, nil, nil)
			cs.SetThrottle(cosmos.Throttle{Match: batches, RetryAfter: time.Millisecond, InBody: inBody})
			var ops []batch.Op[item]
			for i := range 120 {
				ops = append(ops, batch.Op[item]{Entity: item{PartitionKey: "p", RowKey: fmt.Sprintf("r%03d", i)}})
			}
			p := retry.Policy{MaxAttempts: 3}
			sum, err := batch.Write(testenv.Ctx(t), tbl, ops, &batch.WriteOptions{Retry: &p})
			if !errors.Is(err, tablekit.ErrIncomplete) || !errors.Is(err, tablekit.ErrThrottled) {
				t.Fatalf("got %v, want tablekit.ErrIncomplete and tablekit.ErrThrottled", err)
			}
			if sum.Ops != 0 || sum.Chunks != 0 || sum.Throttled != 2 {
				t.Errorf("Summary: %d ops and %d chunks committed, %d throttled retries; want 0, 0, 2", sum.Ops, sum.Chunks, sum.Throttled)
			}
			for i := range ops {
				if s := sum.State(i); s == batch.Committed || s == batch.Unknown {
					t.Fatalf("operation %d: %v after a 429, want Failed or NotSent", i, s)
				}
			}
			if len(sum.Incomplete) == 0 || sum.Incomplete[0].State != batch.Failed {
				t.Errorf("Incomplete: %+v, want the first transaction Failed", sum.Incomplete)
			}
			if got := len(readAll(t, tbl)); got != 0 {
				t.Errorf("stored %d entities, want none", got)
			}
		})
	}
}

// TestCosmosRateLowersOn429: Cosmos DB's 429 lowers the Service's rate, as
// Table Storage's 503 ServerBusy does.
func TestCosmosRateLowersOn429(t *testing.T) {
	evs := &rateEvents{}
	tbl, cs := cosmosTable(t, nil, &table.Options{Rate: &table.Rate{EntitiesPerSecond: 1000, OnChange: evs.add}, Retry: fastRetry}, nil)
	cs.SetThrottle(cosmos.Throttle{Match: faults.PathContains("$batch"), Times: 1})
	if sum, err := batch.Write(testenv.Ctx(t), tbl, small(100, 1, "k"), &batch.WriteOptions{Retry: fastRetry}); err != nil {
		t.Fatalf("Write: %v (summary %+v)", err, sum)
	}
	got := evs.all()
	if len(got) != 1 || !got[0].Throttled || got[0].EntitiesPerSecond >= got[0].Previous || got[0].Previous != 1000 || got[0].ThrottledAnswers != 1 {
		t.Errorf("got rate events %+v, want one decrease from 1000 after one throttled answer", got)
	}
}
