package backup_test

import (
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"

	"github.com/tablekit/tablekit/backup"
	"github.com/tablekit/tablekit/batch"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/table"
)

// filterLog records the $filter of every query sent.
type filterLog struct {
	mu      sync.Mutex
	filters []string
}

func (f *filterLog) Do(req *policy.Request) (*http.Response, error) {
	if q, err := url.ParseQuery(req.Raw().URL.RawQuery); err == nil && q.Has("$filter") {
		f.mu.Lock()
		f.filters = append(f.filters, q.Get("$filter"))
		f.mu.Unlock()
	}
	return req.Next()
}

// TestCosmosChain: on Cosmos DB (the stand-in: results in no key order)
// incremental backups find changes by ETag, never with a Timestamp filter,
// which returns nothing there, and every backup restores as the table was.
func TestCosmosChain(t *testing.T) {
	ctx := testenv.Ctx(t)
	env := testenv.Azurite(t)
	cs := env.Cosmos(t, nil)
	log := &filterLog{}
	var o table.Options
	o.Azcore.PerRetryPolicies = []policy.Policy{log}
	svc := env.CosmosService(t, cs, &o)
	if svc.Backend() != table.CosmosDB {
		t.Fatalf("the stand-in's backend is %v, want CosmosDB", svc.Backend())
	}
	tb := testenv.NewTable[table.Entity](t, svc)
	ops := make([]batch.Op[table.Entity], 200)
	for i := range ops {
		ops[i] = batch.Op[table.Entity]{Entity: entity(i, 0)}
	}
	if _, err := batch.Write(ctx, tb, ops, nil); err != nil {
		t.Fatal(err)
	}
	st := backup.Dir(t.TempDir())
	var ids []string
	var states []map[string]string
	for round := range 3 {
		wantWritten, wantDeleted := 200, 0
		if round > 0 {
			wantWritten, wantDeleted = change(t, tb, round, 10, 5, 7, 200)
		}
		want, _ := snapshot(t, tb)
		in, err := backup.Run(ctx, svc, tb.Name(), st, nil)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if in.Changes != "etag" || in.Written != int64(wantWritten) || in.Deleted != int64(wantDeleted) || in.Entities != int64(len(want)) {
			t.Errorf("round %d: changes %s, written, deleted, entities = %d, %d, %d; want etag, %d, %d, %d",
				round, in.Changes, in.Written, in.Deleted, in.Entities, wantWritten, wantDeleted, len(want))
		}
		ids, states = append(ids, in.ID), append(states, want)
	}
	log.mu.Lock()
	if len(log.filters) == 0 {
		t.Error("no query with a $filter was recorded: the check below saw nothing")
	}
	for _, f := range log.filters {
		if strings.Contains(f, "Timestamp") {
			t.Errorf("a query filtered on Timestamp: %s", f)
		}
	}
	log.mu.Unlock()
	for i, id := range ids {
		restoreAndCompare(t, svc, st, id, states[i])
	}
}
