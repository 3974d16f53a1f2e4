package backup_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tablekit/tablekit/backup"
	"github.com/tablekit/tablekit/devtools/faults"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/retry"
	"github.com/tablekit/tablekit/table"
)

// TestSoakBackupThroughFaults takes a full and an incremental backup and
// restores both through the fault proxy: reads and transactions answered
// 503, replies cut short, transactions committed with their reply lost.
// Every backup restores exactly as the table was. 2,000 entities; 400
// under -short or -race.
func TestSoakBackupThroughFaults(t *testing.T) {
	ctx := testenv.Ctx(t)
	env := testenv.Azurite(t)
	direct := env.NewService(t, nil)
	n := testenv.Size(2000, 400)
	tb := newSeededTable(t, direct, n)

	px, err := faults.Start(env.Endpoint[:strings.LastIndex(env.Endpoint, "/")])
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = px.Close() })
	fast := &retry.Policy{InitialInterval: 10 * time.Millisecond, MaxInterval: 200 * time.Millisecond, MaxAttempts: 12}
	svc, err := table.NewServiceWithSharedKey(px.Endpoint(env.Account), env.Account, env.Key, &table.Options{Retry: fast})
	if err != nil {
		t.Fatal(err)
	}
	isBatch := faults.PathContains("$batch")
	isRead := faults.Method(http.MethodGet)
	px.SetSeed(7)
	px.SetRules(
		faults.Rule{Match: isRead, Probability: 0.10, Fault: faults.Status(http.StatusServiceUnavailable, "ServerBusy", nil)},
		faults.Rule{Match: isRead, Probability: 0.05, Fault: faults.TruncateAfterForward()},
		faults.Rule{Match: isBatch, Probability: 0.10, Fault: faults.Status(http.StatusServiceUnavailable, "ServerBusy", nil)},
		faults.Rule{Match: isBatch, Probability: 0.03, Fault: faults.DropAfterForward()},
	)
	st := backup.Dir(t.TempDir())
	var ids []string
	var states []map[string]string
	for round := range 2 {
		if round > 0 {
			change(t, tb, round, 20, 10, 15, n)
		}
		want, _ := snapshot(t, tb)
		in, err := backup.Run(ctx, svc, tb.Name(), st, &backup.Options{FileBytes: 64 << 10})
		if err != nil {
			t.Fatalf("round %d through faults: %v", round, err)
		}
		ids, states = append(ids, in.ID), append(states, want)
	}
	for i, id := range ids {
		restoreAndCompare(t, svc, st, id, states[i])
	}
	if px.Injected() == 0 {
		t.Fatal("no fault was injected: the test proved nothing")
	}
	t.Logf("%d faults injected", px.Injected())
}
