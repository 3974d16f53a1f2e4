package backup_test

import (
	"testing"

	"github.com/tablekit/tablekit/backup"
	"github.com/tablekit/tablekit/devtools/testenv"
)

// TestChain takes a full backup and incremental ones after updates,
// deletes and adds, and restores every one, compared with the table as it
// was at that backup; by Timestamp and by ETag, to both stores.
func TestChain(t *testing.T) {
	svc := testenv.Azurite(t).NewService(t, nil)
	for _, sk := range stores {
		for _, changes := range []backup.Changes{backup.ChangesByTimestamp, backup.ChangesByETag} {
			t.Run(sk.name+"/"+changes.String(), func(t *testing.T) {
				ctx := testenv.Ctx(t)
				st := sk.open(t)
				n := testenv.Size(300, 120)
				tb := newSeededTable(t, svc, n)
				opts := &backup.Options{Changes: changes, FileBytes: 16 << 10}
				var ids []string
				var states []map[string]string
				for round := range 3 {
					wantWritten, wantDeleted := n, 0
					if round > 0 {
						wantWritten, wantDeleted = change(t, tb, round, 10, 5, 7, n)
					}
					want, _ := snapshot(t, tb)
					in, err := backup.Run(ctx, svc, tb.Name(), st, opts)
					if err != nil {
						t.Fatalf("round %d: %v", round, err)
					}
					if got, want := in.Full, round == 0; got != want {
						t.Errorf("round %d: Full = %v, want %v", round, got, want)
					}
					if in.Written != int64(wantWritten) || in.Deleted != int64(wantDeleted) || in.Entities != int64(len(want)) {
						t.Errorf("round %d: written, deleted, entities = %d, %d, %d; want %d, %d, %d",
							round, in.Written, in.Deleted, in.Entities, wantWritten, wantDeleted, len(want))
					}
					ids = append(ids, in.ID)
					states = append(states, want)
				}
				list, err := backup.List(ctx, st)
				if err != nil {
					t.Fatal(err)
				}
				if len(list) != len(ids) {
					t.Fatalf("List: %d backups, want %d", len(list), len(ids))
				}
				for i, in := range list {
					if in.ID != ids[i] || in.Bytes == 0 || in.Table != tb.Name() {
						t.Errorf("List[%d] = %s (%d bytes, table %s), want %s of %s", i, in.ID, in.Bytes, in.Table, ids[i], tb.Name())
					}
				}
				for i, id := range ids {
					restoreAndCompare(t, svc, st, id, states[i])
				}
			})
		}
	}
}
