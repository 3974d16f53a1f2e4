package backup_test

import (
	"errors"
	"testing"
	"time"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/backup"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/table"
)

// TestEntities reads each backup of a chain as of its ID and finds the
// table's state at that backup: every key once, deleted keys absent.
func TestEntities(t *testing.T) {
	ctx := testenv.Ctx(t)
	svc := testenv.Azurite(t).NewService(t, nil)
	st := backup.Dir(t.TempDir())
	tb := newSeededTable(t, svc, 120)
	raw, err := table.New[table.RawEntity](svc, tb.Name())
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	var states []map[string]string
	for round := range 3 {
		if round > 0 {
			change(t, tb, round, 8, 4, 6, 120)
		}
		want, _ := snapshot(t, tb)
		in, err := backup.Run(ctx, svc, tb.Name(), st, &backup.Options{FileBytes: 4 << 10})
		if err != nil {
			t.Fatal(err)
		}
		ids, states = append(ids, in.ID), append(states, want)
	}
	for i, id := range ids {
		if found, err := backup.Find(ctx, st, &backup.ReadOptions{ID: id}); err != nil || found.ID != id {
			t.Errorf("Find(%s) = %s, %v", id, found.ID, err)
		}
		in, seq, err := backup.Entities(ctx, raw, st, &backup.ReadOptions{ID: id})
		if err != nil {
			t.Fatalf("Entities(%s): %v", id, err)
		}
		if in.ID != id {
			t.Errorf("Entities(%s) read backup %s", id, in.ID)
		}
		got := map[string]string{}
		for e, err := range seq {
			if err != nil {
				t.Fatalf("Entities(%s): %v", id, err)
			}
			k := e.PartitionKey + "/" + e.RowKey
			if _, ok := got[k]; ok {
				t.Errorf("Entities(%s): %s came twice", id, k)
			}
			// In the form snapshot writes: through table.Entity's codec.
			b, err := raw.Marshal(table.RawEntity{PartitionKey: e.PartitionKey, RowKey: e.RowKey, Properties: e.Properties})
			if err != nil {
				t.Fatal(err)
			}
			ent, err := tb.Unmarshal(b)
			if err != nil {
				t.Fatal(err)
			}
			if b, err = tb.Marshal(ent); err != nil {
				t.Fatal(err)
			}
			got[k] = string(b)
		}
		if len(got) != len(states[i]) {
			t.Errorf("Entities(%s): got %d entities, want %d", id, len(got), len(states[i]))
		}
		diff(t, "Entities("+id+")", got, states[i])
	}
}

// TestFindLast: nil finds the last backup, Before the last finished by
// then.
func TestFindLast(t *testing.T) {
	ctx := testenv.Ctx(t)
	svc := testenv.Azurite(t).NewService(t, nil)
	st := backup.Dir(t.TempDir())
	tb := newSeededTable(t, svc, 10)
	var infos []backup.Info
	for range 2 {
		in, err := backup.Run(ctx, svc, tb.Name(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		infos = append(infos, in)
	}
	for _, c := range []struct {
		name string
		o    *backup.ReadOptions
		want string
	}{
		{"nil", nil, infos[1].ID},
		{"before the second finished", &backup.ReadOptions{Before: infos[1].Finished.Add(-time.Nanosecond)}, infos[0].ID},
		{"when the second finished", &backup.ReadOptions{Before: infos[1].Finished}, infos[1].ID},
	} {
		if got, err := backup.Find(ctx, st, c.o); err != nil || got.ID != c.want {
			t.Errorf("%s: Find = %s, %v; want %s", c.name, got.ID, err, c.want)
		}
	}
}

// TestEntitiesRefuses: a missing backup, both ID and Before, a name that
// is no ID.
func TestEntitiesRefuses(t *testing.T) {
	ctx := testenv.Ctx(t)
	svc := testenv.Azurite(t).NewService(t, nil)
	raw, err := table.New[table.RawEntity](svc, "anytable")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		o    *backup.ReadOptions
		want error
	}{
		{"none", nil, backup.ErrNoBackup},
		{"no such ID", &backup.ReadOptions{ID: "20260101T000000.000Z"}, backup.ErrNoBackup},
		{"not an ID", &backup.ReadOptions{ID: "../x"}, tablekit.ErrInvalid},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := backup.Entities(ctx, raw, backup.Dir(t.TempDir()), c.o)
			if !errors.Is(err, c.want) {
				t.Errorf("Entities: got %v, want %v", err, c.want)
			}
			if _, err := backup.Find(ctx, backup.Dir(t.TempDir()), c.o); !errors.Is(err, c.want) {
				t.Errorf("Find: got %v, want %v", err, c.want)
			}
		})
	}
}
