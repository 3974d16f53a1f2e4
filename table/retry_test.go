package table_test

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/devtools/faults"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/retry"
	"github.com/tablekit/tablekit/table"
)

type Row struct {
	PartitionKey, RowKey string
	V                    int32
}

// proxied opens a created table of Row behind the fault proxy.
func proxied(t *testing.T, o table.Options) (*table.Table[Row], *faults.Proxy) {
	t.Helper()
	env, px := testenv.Proxied(t)
	svc, err := table.NewServiceWithSharedKey(px.Endpoint(env.Account), env.Account, env.Key, &o)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := table.New[Row](svc, testenv.TableName(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.CreateTable(testenv.Ctx(t), tbl.Name()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { px.SetRules(); _ = svc.DeleteTable(testenv.Ctx(t), tbl.Name()) })
	return tbl, px
}

var fast = retry.Policy{InitialInterval: 5 * time.Millisecond, MaxInterval: 20 * time.Millisecond, MaxAttempts: 4}

// ClientOptions installs exactly one retry layer: a request that always gets
// 503 reaches the server MaxAttempts times, not MaxAttempts x (azcore's 3+1).
func TestOneRetryLayer(t *testing.T) {
	tbl, px := proxied(t, table.Options{Retry: &fast})
	px.SetRules(faults.Rule{Match: faults.Method(http.MethodGet), Fault: faults.Status(503, "ServerBusy", nil)})
	px.Reset()
	_, err := tbl.Get(testenv.Ctx(t), "p", "r", nil)
	if !errors.Is(err, tablekit.ErrThrottled) {
		t.Fatalf("err = %v, want tablekit.ErrThrottled", err)
	}
	if got := px.Count(http.MethodGet); got != fast.MaxAttempts {
		t.Errorf("GET attempts = %d, want %d", got, fast.MaxAttempts)
	}
}

// An insert whose response was lost is retried; the retry finds the entity
// and the caller hears that it may have been committed, not a plain conflict.
// Verify then proves it was.
func TestAmbiguousInsert(t *testing.T) {
	tbl, px := proxied(t, table.Options{Retry: &fast})
	ctx := testenv.Ctx(t)
	drop := faults.Rule{Match: faults.Method(http.MethodPost), Times: 1, Fault: faults.DropAfterForward()}

	px.SetRules(drop)
	_, err := tbl.Add(ctx, Row{"p", "a", 1})
	if !errors.Is(err, tablekit.ErrMaybeCommitted) {
		t.Fatalf("err = %v, want tablekit.ErrMaybeCommitted", err)
	}
	if errors.Is(err, tablekit.ErrAlreadyExists) {
		t.Errorf("ambiguous insert also matches tablekit.ErrAlreadyExists; it must be distinct")
	}
	if same, stored, err := tbl.Verify(ctx, Row{"p", "a", 1}, table.Replace); err != nil || !same || stored.ETag == "" {
		t.Errorf("Verify = %v, %+v, %v; want true with the stored ETag", same, stored, err)
	}
	if same, _, err := tbl.Verify(ctx, Row{"p", "a", 2}, table.Replace); err != nil || same {
		t.Errorf("Verify of a different value = %v, %v; want false", same, err)
	}
	// A real conflict stays a conflict.
	if _, err := tbl.Add(ctx, Row{"p", "a", 3}); !errors.Is(err, tablekit.ErrAlreadyExists) {
		t.Errorf("real conflict: err = %v, want tablekit.ErrAlreadyExists", err)
	}
}
