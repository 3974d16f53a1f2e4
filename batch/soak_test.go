package batch_test

import (
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/batch"
	"github.com/tablekit/tablekit/devtools/faults"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/internal/errmap"
	"github.com/tablekit/tablekit/retry"
)

// soakRetry waits little, so the soak spends its time writing, and tries
// often enough that 18% faults almost never exhaust it (0.18^15).
var soakRetry = &retry.Policy{InitialInterval: 5 * time.Millisecond, MaxInterval: 50 * time.Millisecond, MaxAttempts: 15}

// mixedFaults injects 18% faults on $batch: refusals (503 with and
// without Retry-After, 500 OperationTimedOut, 429), resets before
// forwarding, and committed transactions whose reply is lost, cut short or
// garbled.
func mixedFaults(px *faults.Proxy, seed uint64) {
	isBatch := faults.PathContains("$batch")
	rule := func(p float64, f faults.Fault) faults.Rule {
		return faults.Rule{Match: isBatch, Probability: p, Fault: f}
	}
	px.SetSeed(seed)
	px.SetRules(
		rule(0.03, faults.Status(http.StatusServiceUnavailable, "ServerBusy", nil)),
		rule(0.02, faults.Status(http.StatusServiceUnavailable, "ServerBusy", http.Header{"Retry-After": {"1"}})),
		rule(0.02, faults.Status(http.StatusInternalServerError, "OperationTimedOut", nil)),
		rule(0.02, faults.Status(http.StatusTooManyRequests, "TooManyRequests", nil)),
		rule(0.02, faults.ResetBeforeForward()),
		rule(0.03, faults.DropAfterForward()),
		rule(0.02, faults.TruncateAfterForward()),
		rule(0.02, faults.GarbleAfterForward()),
	)
}

// TestSoakUpserts: an upsert load over many partitions through mixed
// faults ends with every entity stored exactly as last written and a
// summary that says so. 20,000 entities over 40 partitions; under -short
// or -race, 2,000 over 40 (small transactions, so that faults still hit
// dozens).
func TestSoakUpserts(t *testing.T) {
	entities, partitions := testenv.Size(20000, 2000), 40
	direct, viaProxy, px := proxied(t)
	ops := load(entities, partitions, 4)
	// A tenth of the entities written again, later, differently.
	for i := 0; i < entities; i += 10 {
		e := ops[i].Entity
		e.N, e.S = -e.N, "again "+e.S
		ops = append(ops, batch.Op[item]{Entity: e})
	}
	mixedFaults(px, 7)
	start := time.Now()
	sum, err := batch.Write(testenv.Context(t, 5*time.Minute), viaProxy, ops, &batch.WriteOptions{Retry: soakRetry})
	elapsed := time.Since(start)
	injected := px.Injected()
	px.SetRules()
	t.Logf("%d entities, %d operations in %d transactions over %d partitions: %v; %d faults injected, %d retries",
		entities, sum.Ops, sum.Chunks, partitions, elapsed.Round(time.Millisecond), injected, sum.Retries)
	if err != nil {
		t.Fatalf("Write: %v (incomplete %+v)", err, sum.Incomplete)
	}
	if sum.Ops != len(ops) || len(sum.Incomplete) != 0 || injected == 0 {
		t.Errorf("summary: %d of %d ops, %d incomplete, %d faults; want all, none, some", sum.Ops, len(ops), len(sum.Incomplete), injected)
	}
	for i := range ops {
		if got := sum.State(i); got != batch.Committed {
			t.Fatalf("State(%d) = %v, want Committed", i, got)
		}
	}
	checkStored(t, direct, lastWritten(ops))
}

// TestSoakConditional: Adds, conditional Updates and conditional Deletes
// through the same faults. No entity is lost or changed twice: each
// operation's effect is in the table exactly when the summary says
// Committed, and an Unknown one left one of its two legal outcomes.
func TestSoakConditional(t *testing.T) {
	// 30 operations per transaction; 15 under -short or -race.
	perKind, partitions := testenv.Size(2000, 300), testenv.Size(200, 60)
	direct, viaProxy, px := proxied(t)
	ctx := testenv.Context(t, 5*time.Minute)

	// Entities to update and delete, each with the ETag it was read with.
	var seed []batch.Op[item]
	for i := range perKind {
		pk := fmt.Sprintf("p%02d", i%partitions)
		seed = append(seed,
			batch.Op[item]{Entity: item{PartitionKey: pk, RowKey: fmt.Sprintf("upd%05d", i)}},
			batch.Op[item]{Entity: item{PartitionKey: pk, RowKey: fmt.Sprintf("del%05d", i)}})
	}
	if _, err := batch.Write(ctx, direct, seed, nil); err != nil {
		t.Fatal(err)
	}
	before := readAll(t, direct)

	var ops []batch.Op[item]
	for i := range perKind {
		pk := fmt.Sprintf("p%02d", i%partitions)
		upd := before[pk+"/"+fmt.Sprintf("upd%05d", i)]
		del := before[pk+"/"+fmt.Sprintf("del%05d", i)]
		ops = append(ops,
			batch.Op[item]{Kind: batch.Add, Entity: item{PartitionKey: pk, RowKey: fmt.Sprintf("add%05d", i), N: 1}},
			batch.Op[item]{Kind: batch.Update, Entity: item{PartitionKey: pk, RowKey: upd.RowKey, N: upd.N + 1}, ETag: upd.ETag},
			batch.Op[item]{Kind: batch.Delete, PartitionKey: pk, RowKey: del.RowKey, ETag: del.ETag})
	}
	mixedFaults(px, 11)
	start := time.Now()
	sum, err := batch.Write(ctx, viaProxy, ops, &batch.WriteOptions{Retry: soakRetry, ContinueOnError: true})
	elapsed := time.Since(start)
	injected := px.Injected()
	px.SetRules()
	states := map[batch.State]int{}
	for i := range ops {
		states[sum.State(i)]++
	}
	t.Logf("%d operations in %d transactions: %v; %d faults injected, %d retries; states %v; error: %v",
		len(ops), sum.Chunks, elapsed.Round(time.Millisecond), injected, sum.Retries, states, err)
	if states[batch.Failed] != 0 || states[batch.NotSent] != 0 {
		t.Errorf("states %v: want only Committed and Unknown", states)
	}
	for _, c := range sum.Incomplete {
		if c.State == batch.Unknown {
			if !isMaybeCommitted(c.Err) {
				t.Errorf("Unknown chunk's error %v: want tablekit.ErrMaybeCommitted or a broken reply", c.Err)
			}
		}
	}

	after := readAll(t, direct)
	for i, op := range ops {
		pk, rk := op.PartitionKey, op.RowKey
		if op.Kind != batch.Delete {
			pk, rk = op.Entity.PartitionKey, op.Entity.RowKey
		}
		stored, exists := after[pk+"/"+rk]
		var applied, untouched bool
		switch op.Kind {
		case batch.Add:
			applied, untouched = exists && stored.N == 1, !exists
		case batch.Update:
			applied, untouched = exists && stored.N == 1, exists && stored.N == 0 && stored.ETag == op.ETag
		case batch.Delete:
			applied, untouched = !exists, exists && stored.ETag == op.ETag
		}
		switch state := sum.State(i); {
		case state == batch.Committed && !applied:
			t.Errorf("op %d (%v %s) Committed but not in the table: %+v exists %v", i, op.Kind, rk, stored, exists)
		case state == batch.Unknown && !applied && !untouched:
			t.Errorf("op %d (%v %s) Unknown and the table holds neither outcome: %+v exists %v", i, op.Kind, rk, stored, exists)
		case state != batch.Committed && state != batch.Unknown && !untouched:
			t.Errorf("op %d (%v %s) %v but the table changed: %+v exists %v", i, op.Kind, rk, state, stored, exists)
		}
	}
}

// isMaybeCommitted reports an error that says the transaction may have
// committed: ambiguous, or broken on every attempt.
func isMaybeCommitted(err error) bool {
	return errors.Is(err, tablekit.ErrMaybeCommitted) || errors.Is(err, tablekit.ErrUnavailable) || errmap.MayHaveReached(err)
}
