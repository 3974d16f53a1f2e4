package batch

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/internal/core"
	"github.com/tablekit/tablekit/table"
)

type row struct {
	PartitionKey, RowKey string
	V                    int32
}

// TestSendUnchecked sends what Transaction refuses, to see what Azurite
// answers and that the reply is still read: 101 operations (a reply that
// net/http cannot parse), a RowKey twice, mixed PartitionKeys (accepted by
// Azurite, refused by the service).
func TestSendUnchecked(t *testing.T) {
	env := testenv.Azurite(t)
	svc, err := table.NewServiceWithSharedKey(env.Endpoint, env.Account, env.Key, nil)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := table.New[row](svc, testenv.TableName(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := svc.CreateTable(ctx, tbl.Name()); err != nil {
		t.Fatal(err)
	}
	defer svc.DeleteTable(context.Background(), tbl.Name())
	enc := newEncoder(tbl, core.NewTxArena(2<<10, 4<<10, 0)) // small blocks: parts across several
	prepare := func(ops []Op[row]) []encoded {
		wire := make([]encoded, len(ops))
		for i := range ops {
			if wire[i], err = enc.encode(ops[i], nil); err != nil {
				t.Fatal(err)
			}
		}
		return wire
	}

	var many []Op[row]
	for i := range 101 {
		many = append(many, Op[row]{Kind: Add, Entity: row{PartitionKey: "p", RowKey: fmt.Sprint(i)}})
	}
	_, err = send(ctx, tbl, prepare(many), false, false)
	var oe *tablekit.ServiceError
	if !errors.As(err, &oe) || oe.StatusCode != 400 || oe.Code != "InvalidInput" || !strings.Contains(oe.Message, "100 changes") {
		t.Errorf("101 operations: %v, want a clear 400 InvalidInput about the 100 changes limit", err)
	}

	dup := []Op[row]{
		{Entity: row{PartitionKey: "p", RowKey: "a"}},
		{Entity: row{PartitionKey: "p", RowKey: "b"}},
		{Entity: row{PartitionKey: "p", RowKey: "a", V: 2}},
	}
	_, err = send(ctx, tbl, prepare(dup), false, false)
	if !errors.As(err, &oe) || oe.Index != 2 || oe.Code != "InvalidDuplicateRow" || !errors.Is(err, tablekit.ErrService) {
		t.Errorf("RowKey twice: %v, want InvalidDuplicateRow at 2 matching tablekit.ErrService", err)
	}

	mixed := []Op[row]{{Entity: row{PartitionKey: "p", RowKey: "m"}}, {Entity: row{PartitionKey: "q", RowKey: "m"}}}
	if res, err := send(ctx, tbl, prepare(mixed), false, true); err != nil || len(res) != 2 {
		t.Logf("Azurite now refuses mixed PartitionKeys (%v); the client-side check stays", err)
	}

	// A commit gives each operation's result only when asked for them.
	for _, tt := range []struct {
		results bool
		want    int
	}{{true, 2}, {false, 0}} {
		ops := []Op[row]{{Entity: row{PartitionKey: "r", RowKey: "1"}}, {Entity: row{PartitionKey: "r", RowKey: "2"}}}
		res, err := send(ctx, tbl, prepare(ops), false, tt.results)
		if err != nil || len(res) != tt.want {
			t.Fatalf("results %v: got %d results, error %v; want %d, no error", tt.results, len(res), err, tt.want)
		}
		for i, r := range res {
			if r.StatusCode != 204 || r.ETag == "" || r.Timestamp.IsZero() {
				t.Errorf("result %d: got %+v, want 204 with an ETag and its Timestamp", i, r)
			}
		}
	}

	// Nothing of the refused transactions was written.
	if _, err := tbl.Get(ctx, "p", "0", nil); !errors.Is(err, tablekit.ErrNotFound) {
		t.Errorf("an operation of the refused 101 was written: %v", err)
	}
}
