package backup_test

import (
	"context"
	"errors"
	"io"
	"slices"
	"testing"
	"time"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/backup"
	"github.com/tablekit/tablekit/batch"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/table"
)

// TestKeep folds the older backups of a chain into a full one from the
// stored files and removes them; what is kept restores as before.
func TestKeep(t *testing.T) {
	for _, sk := range stores {
		t.Run(sk.name, func(t *testing.T) {
			ctx := testenv.Ctx(t)
			svc := testenv.Azurite(t).NewService(t, nil)
			st := sk.open(t)
			tb := newSeededTable(t, svc, 200)
			var ids []string
			var states []map[string]string
			for round := range 4 {
				if round > 0 {
					change(t, tb, round, 10, 5, 7, 200)
				}
				want, _ := snapshot(t, tb)
				in, err := backup.Run(ctx, svc, tb.Name(), st, &backup.Options{FileBytes: 8 << 10})
				if err != nil {
					t.Fatal(err)
				}
				ids, states = append(ids, in.ID), append(states, want)
			}
			// The table is gone: Keep reads only the store.
			if err := svc.DeleteTable(ctx, tb.Name()); err != nil {
				t.Fatal(err)
			}
			kept, err := backup.Keep(ctx, st, 2)
			if err != nil {
				t.Fatal(err)
			}
			if kept.Folded == nil || kept.Folded.FoldOf != ids[2] || !kept.Folded.Full || kept.Folded.Entities != int64(len(states[2])) {
				t.Fatalf("Folded = %+v, want a full backup of %s with %d entities", kept.Folded, ids[2], len(states[2]))
			}
			if want := ids[:3]; !slices.Equal(kept.Removed, want) {
				t.Errorf("Removed = %q, want %q", kept.Removed, want)
			}
			list, err := backup.List(ctx, st)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, in := range list {
				got = append(got, in.ID)
			}
			if want := []string{kept.Folded.ID, ids[3]}; !slices.Equal(got, want) {
				t.Errorf("List after Keep = %q, want %q", got, want)
			}
			for _, id := range ids[:3] {
				if names, err := st.List(ctx, "files/"+id+"/"); err != nil || len(names) > 0 {
					t.Errorf("files of removed backup %s: %q, %v; want none", id, names, err)
				}
			}
			restoreAndCompare(t, svc, st, kept.Folded.ID, states[2])
			restoreAndCompare(t, svc, st, ids[3], states[3])
			if again, err := backup.Keep(ctx, st, 2); err != nil || again.Folded != nil || len(again.Removed) > 0 {
				t.Errorf("Keep again = %+v, %v; want nothing to do", again, err)
			}
		})
	}
}

// TestRestoreModes restores into a table that holds entities: refused
// by default, Replace makes it the backup, AddMissing adds what it lacks.
func TestRestoreModes(t *testing.T) {
	ctx := testenv.Ctx(t)
	svc := testenv.Azurite(t).NewService(t, nil)
	st := backup.Dir(t.TempDir())
	src := newSeededTable(t, svc, 100)
	in, err := backup.Run(ctx, svc, src.Name(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	backedUp, _ := snapshot(t, src)
	// The target holds a changed copy of entity 1 and an entity of its own.
	own := table.NewEntity("mine", "1")
	own.Properties = map[string]any{"X": "y"}
	changed := entity(1, 99)
	cases := []struct {
		mode        backup.Mode
		wantErr     error
		wantWritten int
		wantDeleted int
		want        func() map[string]string
	}{
		{backup.IntoEmpty, backup.ErrNotEmpty, 0, 0, func() map[string]string { return nil }},
		{backup.Replace, nil, 100, 1, func() map[string]string { return backedUp }},
		{backup.AddMissing, nil, 99, 0, nil},
	}
	for _, tc := range cases {
		t.Run([]string{"IntoEmpty", "Replace", "AddMissing"}[tc.mode], func(t *testing.T) {
			dst := testenv.NewTable[table.Entity](t, svc)
			if _, err := batch.Write(ctx, dst, []batch.Op[table.Entity]{{Entity: own}, {Entity: changed}}, nil); err != nil {
				t.Fatal(err)
			}
			before, _ := snapshot(t, dst)
			res, err := backup.Restore(ctx, svc, dst.Name(), st, &backup.RestoreOptions{Mode: tc.mode})
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("got %v, want %v", err, tc.wantErr)
			}
			if res.Written != tc.wantWritten || res.Deleted != tc.wantDeleted {
				t.Errorf("written, deleted = %d, %d; want %d, %d", res.Written, res.Deleted, tc.wantWritten, tc.wantDeleted)
			}
			got, _ := snapshot(t, dst)
			want := before // refused: unchanged
			if tc.mode == backup.Replace {
				want = backedUp
			}
			if tc.mode == backup.AddMissing {
				want = map[string]string{}
				for k, v := range backedUp {
					want[k] = v
				}
				for k, v := range before { // the table's own versions stay
					want[k] = v
				}
			}
			diff(t, "after restore", got, want)
			if res.Backup.ID != "" && res.Backup.ID != in.ID {
				t.Errorf("restored %s, want the last, %s", res.Backup.ID, in.ID)
			}
		})
	}
}

// TestRestoreTimestampProperty keeps each entity's original Timestamp in a
// property, and refuses an entity that has one of that name.
func TestRestoreTimestampProperty(t *testing.T) {
	ctx := testenv.Ctx(t)
	svc := testenv.Azurite(t).NewService(t, nil)
	st := backup.Dir(t.TempDir())
	src := newSeededTable(t, svc, 50)
	if _, err := backup.Run(ctx, svc, src.Name(), st, nil); err != nil {
		t.Fatal(err)
	}
	_, stamps := snapshot(t, src)
	dst := testenv.NewTable[table.Entity](t, svc)
	if _, err := backup.Restore(ctx, svc, dst.Name(), st, &backup.RestoreOptions{TimestampProperty: "Original"}); err != nil {
		t.Fatal(err)
	}
	n := 0
	for k, want := range stamps {
		pk, rk, _ := cut(k)
		e, err := dst.Get(ctx, pk, rk, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := e.Properties["Original"].(time.Time); !ok || !got.Equal(want) {
			t.Errorf("%s: Original = %v, want the source's Timestamp %v", k, e.Properties["Original"], want)
		}
		n++
	}
	if n != 50 {
		t.Fatalf("checked %d entities, want 50", n)
	}
	// "Name" is a property every entity has.
	dst2 := testenv.TableName(t)
	t.Cleanup(func() { _ = svc.DeleteTable(context.Background(), dst2) })
	_, err := backup.Restore(ctx, svc, dst2, st, &backup.RestoreOptions{TimestampProperty: "Name"})
	if !errors.Is(err, tablekit.ErrInvalid) {
		t.Errorf("TimestampProperty naming an existing property: got %v, want tablekit.ErrInvalid", err)
	}
}

func cut(k string) (pk, rk string, ok bool) {
	for i := range len(k) {
		if k[i] == '/' {
			return k[:i], k[i+1:], true
		}
	}
	return k, "", false
}

// noStore fails the test on any call: validation comes before I/O.
type noStore struct{ t *testing.T }

func (s noStore) Put(context.Context, string, io.Reader) error {
	s.t.Error("Put called")
	return nil
}
func (s noStore) Create(context.Context, string, io.Reader) error {
	s.t.Error("Create called")
	return nil
}
func (s noStore) Get(context.Context, string) (io.ReadCloser, error) {
	s.t.Error("Get called")
	return nil, errors.New("no")
}
func (s noStore) List(context.Context, string) ([]string, error) {
	s.t.Error("List called")
	return nil, nil
}
func (s noStore) Delete(context.Context, string) error {
	s.t.Error("Delete called")
	return nil
}

// TestInvalidInput is refused with tablekit.ErrInvalid before the store or
// the service is called (nothing listens on the service's port).
func TestInvalidInput(t *testing.T) {
	ctx := testenv.Ctx(t)
	svc, err := table.NewServiceWithSharedKey("http://127.0.0.1:1/devstoreaccount1", "devstoreaccount1", "a2V5", nil)
	if err != nil {
		t.Fatal(err)
	}
	st := noStore{t}
	cases := []struct {
		name string
		call func() error
	}{
		{"run: bad table name", func() error { _, err := backup.Run(ctx, svc, "no-dashes", st, nil); return err }},
		{"run: negative overlap", func() error {
			_, err := backup.Run(ctx, svc, "orders", st, &backup.Options{Overlap: -time.Second})
			return err
		}},
		{"run: parallelism over the maximum", func() error {
			_, err := backup.Run(ctx, svc, "orders", st, &backup.Options{Parallelism: 1000})
			return err
		}},
		{"run: unknown Changes", func() error {
			_, err := backup.Run(ctx, svc, "orders", st, &backup.Options{Changes: 7})
			return err
		}},
		{"restore: ID and Before", func() error {
			_, err := backup.Restore(ctx, svc, "orders", st, &backup.RestoreOptions{ID: "x", Before: time.Now()})
			return err
		}},
		{"restore: unknown mode", func() error {
			_, err := backup.Restore(ctx, svc, "orders", st, &backup.RestoreOptions{Mode: 9})
			return err
		}},
		{"restore: ID with a slash", func() error {
			_, err := backup.Restore(ctx, svc, "orders", st, &backup.RestoreOptions{ID: "../x"})
			return err
		}},
		{"restore: TimestampProperty Timestamp", func() error {
			_, err := backup.Restore(ctx, svc, "orders", st, &backup.RestoreOptions{TimestampProperty: "Timestamp"})
			return err
		}},
		{"restore: TimestampProperty not a name", func() error {
			_, err := backup.Restore(ctx, svc, "orders", st, &backup.RestoreOptions{TimestampProperty: "a b"})
			return err
		}},
		{"keep: 0", func() error { _, err := backup.Keep(ctx, st, 0); return err }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.call(); !errors.Is(err, tablekit.ErrInvalid) {
				t.Errorf("got %v, want tablekit.ErrInvalid", err)
			}
		})
	}
}

// TestRestorePicks chooses a backup by ID, by the time it finished, or
// the last, and says when there is none.
func TestRestorePicks(t *testing.T) {
	ctx := testenv.Ctx(t)
	svc := testenv.Azurite(t).NewService(t, nil)
	st := backup.Dir(t.TempDir())
	src := newSeededTable(t, svc, 100)
	if _, err := backup.Restore(ctx, svc, testenv.TableName(t), st, nil); !errors.Is(err, backup.ErrNoBackup) {
		t.Fatalf("restore from an empty store: got %v, want ErrNoBackup", err)
	}
	var infos []backup.Info
	for round := range 2 {
		if round > 0 {
			change(t, src, round, 2, 1, 1, 100)
		}
		in, err := backup.Run(ctx, svc, src.Name(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		infos = append(infos, in)
	}
	cases := []struct {
		name    string
		o       backup.RestoreOptions
		want    string
		wantErr error
	}{
		{"last", backup.RestoreOptions{}, infos[1].ID, nil},
		{"by ID", backup.RestoreOptions{ID: infos[0].ID}, infos[0].ID, nil},
		{"finished by the first's end", backup.RestoreOptions{Before: infos[0].Finished}, infos[0].ID, nil},
		{"finished by the second's end", backup.RestoreOptions{Before: infos[1].Finished.Add(time.Hour)}, infos[1].ID, nil},
		{"before any", backup.RestoreOptions{Before: infos[0].Started}, "", backup.ErrNoBackup},
		{"unknown ID", backup.RestoreOptions{ID: "20000101T000000.000Z"}, "", backup.ErrNoBackup},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			name := testenv.TableName(t)
			t.Cleanup(func() { _ = svc.DeleteTable(context.Background(), name) })
			res, err := backup.Restore(ctx, svc, name, st, &tc.o)
			if !errors.Is(err, tc.wantErr) || res.Backup.ID != tc.want {
				t.Errorf("restored %q, %v; want %q, %v", res.Backup.ID, err, tc.want, tc.wantErr)
			}
		})
	}
}
