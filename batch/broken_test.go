package batch_test

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"syscall"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/batch"
	"github.com/tablekit/tablekit/devtools/faults"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/retry"
	"github.com/tablekit/tablekit/table"
)

// brokenReplies are the ways a committed transaction's reply gets lost,
// with the original failure the caller must still be able to see.
var brokenReplies = []struct {
	name  string
	fault faults.Fault
	cause error
}{
	{"truncated", faults.TruncateAfterForward(), io.ErrUnexpectedEOF},
	{"garbled", faults.GarbleAfterForward(), tablekit.ErrMaybeCommitted},
	{"dropped", faults.DropAfterForward(), syscall.ECONNRESET},
}

// clientSetups: with tablekit's retry pipeline, and without any (where
// azcore reads and closes a cut-short body before batch sees it).
var clientSetups = []struct {
	name string
	opts *table.Options
}{
	{"pipeline", &table.Options{Retry: fastRetry}},
	{"no-retry", &table.Options{Retry: &retry.Policy{MaxAttempts: 1}}},
}

// TestWriteBrokenReply: the first transaction of a partition commits but
// its reply is lost, cut short or garbled. Upserts are retried and commit;
// Adds end Unknown, as maybe committed, with the original failure kept; the
// partition's second transaction is sent either way.
func TestWriteBrokenReply(t *testing.T) {
	for _, br := range brokenReplies {
		for _, cs := range clientSetups {
			for _, kind := range []batch.OpKind{batch.Upsert, batch.Add} {
				t.Run(br.name+"/"+cs.name+"/"+kind.String(), func(t *testing.T) {
					direct, viaProxy, px := proxiedWith(t, cs.opts)
					var ops []batch.Op[item]
					for i := range 150 {
						ops = append(ops, batch.Op[item]{Kind: kind, Entity: item{PartitionKey: "p", RowKey: fmt.Sprintf("%03d", i), N: int64(i)}})
					}
					px.SetRules(faults.Rule{Match: faults.PathContains("$batch"), Times: 1, Fault: br.fault})
					sum, err := batch.Write(testenv.Ctx(t), viaProxy, ops, &batch.WriteOptions{Retry: fastRetry})
					if sum.Retries != 1 {
						t.Errorf("%d retries, want 1", sum.Retries)
					}
					// Either way the first attempt committed everything, and
					// the second transaction was sent.
					checkStored(t, direct, lastWritten(ops))
					if kind == batch.Upsert {
						if err != nil || sum.Ops != 150 {
							t.Fatalf("Write: %v, %d ops committed; want nil, 150", err, sum.Ops)
						}
						return
					}
					if got, want := sum.State(0), batch.Unknown; got != want {
						t.Errorf("State(0) = %v, want %v", got, want)
					}
					if got, want := sum.State(100), batch.Committed; got != want {
						t.Errorf("State(100) = %v, want %v (the next transaction is still sent)", got, want)
					}
					if len(sum.Incomplete) != 1 {
						t.Fatalf("Incomplete %+v, want one chunk", sum.Incomplete)
					}
					checkMaybeCommitted(t, sum.Incomplete[0].Err, http.StatusConflict, br.cause)
					if !errors.Is(err, tablekit.ErrIncomplete) || !errors.Is(err, tablekit.ErrMaybeCommitted) {
						t.Errorf("Write: %v, want tablekit.ErrIncomplete and tablekit.ErrMaybeCommitted", err)
					}
				})
			}
		}
	}
}

// checkMaybeCommitted checks an error for a transaction that may have
// committed: an *tablekit.MaybeCommittedError for transactions, the retry's status
// reachable, never a plain conflict, and the cause (when given) kept.
func checkMaybeCommitted(t *testing.T, err error, status int, cause error) {
	t.Helper()
	var amb *tablekit.MaybeCommittedError
	var re *azcore.ResponseError
	switch {
	case !errors.As(err, &amb) || amb.Operation != "transaction":
		t.Errorf("error %v: want a *tablekit.MaybeCommittedError for a transaction", err)
	case !errors.Is(err, tablekit.ErrMaybeCommitted):
		t.Errorf("error %v: want tablekit.ErrMaybeCommitted", err)
	case !errors.As(err, &re) || re.StatusCode != status:
		t.Errorf("error %v: want the retry's %d reachable", err, status)
	case errors.Is(err, tablekit.ErrAlreadyExists) || errors.Is(err, tablekit.ErrPreconditionFailed) || errors.Is(err, tablekit.ErrNotFound):
		t.Errorf("error %v: reads as a plain refusal", err)
	case cause != nil && !errors.Is(err, cause):
		t.Errorf("error %v: the original failure %v is lost", err, cause)
	}
}

// TestWriteAfterUnknownSkipsItsEntities: after a transaction ends Unknown,
// the partition's later transactions are sent without the operations on
// its entities, which are NotSent with the reason.
func TestWriteAfterUnknownSkipsItsEntities(t *testing.T) {
	direct, viaProxy, px := proxied(t)
	var ops []batch.Op[item]
	for i := range 150 {
		kind := batch.Add
		if i >= 100 {
			kind = batch.Upsert
		}
		ops = append(ops, batch.Op[item]{Kind: kind, Entity: item{PartitionKey: "p", RowKey: fmt.Sprintf("%03d", i), N: int64(i)}})
	}
	ops = append(ops, batch.Op[item]{Entity: item{PartitionKey: "p", RowKey: "005", N: -5}})
	px.SetRules(faults.Rule{Match: faults.PathContains("$batch"), Times: 1, Fault: faults.GarbleAfterForward()})
	sum, err := batch.Write(testenv.Ctx(t), viaProxy, ops, &batch.WriteOptions{Retry: fastRetry})
	if !errors.Is(err, tablekit.ErrMaybeCommitted) {
		t.Fatalf("Write: %v, want tablekit.ErrMaybeCommitted", err)
	}
	for _, tt := range []struct {
		pos  int
		want batch.State
	}{{0, batch.Unknown}, {99, batch.Unknown}, {100, batch.Committed}, {149, batch.Committed}, {150, batch.NotSent}} {
		if got := sum.State(tt.pos); got != tt.want {
			t.Errorf("State(%d) = %v, want %v", tt.pos, got, tt.want)
		}
	}
	last := sum.Incomplete[len(sum.Incomplete)-1]
	if len(sum.Incomplete) != 2 || len(last.Ops) != 1 || last.Ops[0] != 150 || last.State != batch.NotSent || !strings.HasPrefix(last.Err.Error(), "batch: not sent") {
		t.Errorf("Incomplete %+v: want the Unknown chunk and op 150 not sent", sum.Incomplete)
	}
	if got, want := sum.Ops, 50; got != want {
		t.Errorf("%d ops committed, want %d", got, want)
	}
	checkStored(t, direct, lastWritten(ops[:150]))
}

// TestSubmitAfterBrokenReply: a transaction the client's pipeline retried
// after an attempt that may have committed, and whose retry then collides
// with that commit, is maybe committed; after a refusal read whole (503) a
// collision is someone else's write.
func TestSubmitAfterBrokenReply(t *testing.T) {
	tests := []struct {
		name   string
		fault  faults.Fault
		kind   batch.OpKind
		status int
		ambig  bool
	}{
		{"truncated add", faults.TruncateAfterForward(), batch.Add, http.StatusConflict, true},
		{"dropped add", faults.DropAfterForward(), batch.Add, http.StatusConflict, true},
		{"truncated update", faults.TruncateAfterForward(), batch.Update, http.StatusPreconditionFailed, true},
		{"dropped delete", faults.DropAfterForward(), batch.Delete, http.StatusNotFound, true},
		{"busy then someone's add", faults.Status(http.StatusServiceUnavailable, "ServerBusy", nil), batch.Add, http.StatusConflict, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			direct, viaProxy, px := proxied(t)
			ctx := testenv.Ctx(t)
			res, err := direct.Add(ctx, item{PartitionKey: "p", RowKey: "old", N: 1})
			if err != nil {
				t.Fatal(err)
			}
			tx := batch.New(viaProxy)
			switch tt.kind {
			case batch.Add:
				rk := "new"
				if !tt.ambig {
					rk = "old" // someone else's entity
				}
				tx.Add(item{PartitionKey: "p", RowKey: rk})
			case batch.Update:
				tx.Update(item{PartitionKey: "p", RowKey: "old", N: 2}, table.Replace, res.ETag)
			case batch.Delete:
				tx.Delete("p", "old", res.ETag)
			}
			px.SetRules(faults.Rule{Match: faults.PathContains("$batch"), Times: 1, Fault: tt.fault})
			_, err = tx.Submit(ctx)
			if tt.ambig {
				checkMaybeCommitted(t, err, tt.status, nil)
				return
			}
			var oe *tablekit.ServiceError
			if !errors.As(err, &oe) || oe.StatusCode != tt.status || errors.Is(err, tablekit.ErrMaybeCommitted) {
				t.Errorf("Submit: %v, want a plain %d", err, tt.status)
			}
		})
	}
}
