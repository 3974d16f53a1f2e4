package backup_test

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/tablekit/tablekit/backup"
	"github.com/tablekit/tablekit/backup/blobstore"
	"github.com/tablekit/tablekit/batch"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/query"
	"github.com/tablekit/tablekit/table"
)

// stores are the two kinds of backup.Store, each test runs against both.
var stores = []struct {
	name string
	open func(t *testing.T) backup.Store
}{
	{"dir", func(t *testing.T) backup.Store { return backup.Dir(t.TempDir()) }},
	{"blob", func(t *testing.T) backup.Store {
		b := testenv.AzuriteBlob(t)
		st, err := blobstore.NewWithSharedKey(b.Endpoint+"/"+testenv.ContainerName(t)+"/backups", b.Account, b.Key, nil)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}},
}

// newSeededTable creates a table of n entities over 4 partitions holding
// every EDM type, NaN and the infinities among the doubles.
func newSeededTable(t *testing.T, svc *table.Service, n int) *table.Table[table.Entity] {
	t.Helper()
	tb := testenv.NewTable[table.Entity](t, svc)
	ops := make([]batch.Op[table.Entity], n)
	for i := range ops {
		ops[i] = batch.Op[table.Entity]{Entity: entity(i, 0)}
	}
	if _, err := batch.Write(testenv.Ctx(t), tb, ops, nil); err != nil {
		t.Fatal(err)
	}
	return tb
}

// entity is the i-th entity at version v.
func entity(i, v int) table.Entity {
	e := table.NewEntity(fmt.Sprintf("p%d", i%4), fmt.Sprintf("r%05d", i))
	doubles := []float64{1.0, math.NaN(), math.Inf(1), -2.5e-300}
	e.Properties = map[string]any{
		"Name":    fmt.Sprintf("entity %d 'quoted' \"x\" é", i),
		"Version": int32(v),
		"Big":     int64(i) << 40,
		"Ratio":   doubles[i%len(doubles)],
		"Ok":      i%2 == 0,
		"When":    time.Date(2020, 1, 2, 3, 4, 5, 100*i, time.UTC),
		"Guid":    table.GUID{byte(i), 1, 2, 3},
		"Blob":    []byte{0, byte(i), 255},
	}
	if i%5 == 0 {
		delete(e.Properties, "Blob") // entities of several shapes
	}
	return e
}

// snapshot reads the table as key -> the entity's JSON as the codec
// writes it (exact EDM types, no Timestamp or ETag), and key -> Timestamp.
func snapshot(t *testing.T, tb *table.Table[table.Entity]) (map[string]string, map[string]time.Time) {
	t.Helper()
	got, ts := map[string]string{}, map[string]time.Time{}
	for e, err := range query.New(tb).All(testenv.Ctx(t)) {
		if err != nil {
			t.Fatal(err)
		}
		b, err := tb.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		k := e.PartitionKey + "/" + e.RowKey
		got[k], ts[k] = string(b), e.Timestamp
	}
	return got, ts
}

// restoreAndCompare restores backup id into a new table and checks that it
// holds want exactly.
func restoreAndCompare(t *testing.T, svc *table.Service, st backup.Store, id string, want map[string]string) {
	t.Helper()
	ctx := testenv.Ctx(t)
	name := testenv.TableName(t)
	t.Cleanup(func() { _ = svc.DeleteTable(context.Background(), name) })
	res, err := backup.Restore(ctx, svc, name, st, &backup.RestoreOptions{ID: id})
	if err != nil {
		t.Fatalf("Restore(%s): %v", id, err)
	}
	if res.Written != len(want) {
		t.Errorf("Restore(%s) wrote %d entities, want %d", id, res.Written, len(want))
	}
	rt, err := table.New[table.Entity](svc, name)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := snapshot(t, rt)
	diff(t, "restore of "+id, got, want)
}

// diff reports the keys whose entities differ, at most 5.
func diff(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	n := 0
	for _, k := range slices.Sorted(maps.Keys(want)) {
		if got[k] != want[k] && n < 5 {
			t.Errorf("%s: %s:\ngot  %s\nwant %s", what, k, got[k], want[k])
			n++
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok && n < 5 {
			t.Errorf("%s: %s: got %s, want no entity", what, k, got[k])
			n++
		}
	}
}

// change applies a round of changes: updates, deletes and adds, each a
// distinct set of keys; it returns how many were written and deleted.
func change(t *testing.T, tb *table.Table[table.Entity], round, updates, deletes, adds, base int) (written, deleted int) {
	t.Helper()
	var ops []batch.Op[table.Entity]
	i := round * 40 // each round changes other keys
	for range updates {
		ops = append(ops, batch.Op[table.Entity]{Entity: entity(i, round)})
		i++
	}
	for range deletes {
		e := entity(i, 0)
		ops = append(ops, batch.Op[table.Entity]{Kind: batch.Delete, PartitionKey: e.PartitionKey, RowKey: e.RowKey, ETag: table.AnyETag})
		i++
	}
	for j := range adds {
		ops = append(ops, batch.Op[table.Entity]{Entity: entity(base+round*100+j, round)})
	}
	if _, err := batch.Write(testenv.Ctx(t), tb, ops, nil); err != nil {
		t.Fatal(err)
	}
	return updates + adds, deletes
}
