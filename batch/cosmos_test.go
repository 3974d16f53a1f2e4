package batch_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"

	"github.com/tablekit/tablekit/batch"
	"github.com/tablekit/tablekit/devtools/cosmos"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/internal/backend"
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
	ctx := ctxT(t, 2*time.Minute)
	parts, per := 2, 24
	if testing.Short() {
		per = 16
	}
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
	st := newTable(t, nil, nil)
	tx, stx := batch.New(tbl), batch.New(st)
	for i := range 16 {
		e := item{PartitionKey: "p", RowKey: fmt.Sprintf("r%02d", i), S: strings.Repeat("s", 32<<10), T: strings.Repeat("t", 32<<10), B: make([]byte, 64<<10)}
		tx.Upsert(e, table.Replace)
		stx.Upsert(e, table.Replace)
	}
	if stx.Size() <= cosmosBody || stx.Size() >= storageBody {
		t.Fatalf("the test transaction has %d bytes: want between Cosmos DB's and Table Storage's limits", stx.Size())
	}
	ctx := ctxT(t, time.Minute)
	cs.Reset()
	_, err := tx.Submit(ctx)
	var ie *batch.InvalidError
	if !errors.Is(err, batch.ErrBodyTooLarge) || !errors.As(err, &ie) {
		t.Errorf("on Cosmos DB: got %v, want ErrBodyTooLarge", err)
	}
	if n := cs.Stats().Requests; n != 0 {
		t.Errorf("on Cosmos DB: %d requests sent, want none", n)
	}
	if _, err := stx.Submit(ctx); err != nil {
		t.Errorf("on Table Storage: %v", err)
	}
}
