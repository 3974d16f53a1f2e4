package backup_test

import (
	"context"
	"errors"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/backup"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/table"
)

// shareRanges cut newSeededTable's partitions p0 to p3 into three shares.
var shareRanges = [][2]string{{"", "p1"}, {"p1", "p3"}, {"p3", ""}}

// runShare runs share i (1-based) of backup id.
func runShare(ctx context.Context, svc *table.Service, tb string, st backup.Store, id string, i int) (backup.Info, error) {
	r := shareRanges[i-1]
	return backup.Run(ctx, svc, tb, st, &backup.Options{FileBytes: 4 << 10, Share: &backup.Share{
		ID: id, Index: i, Count: len(shareRanges), From: r[0], To: r[1],
	}})
}

// backupID is an ID a second after the last one, as a scheduler would
// hand every share.
func backupID(n int) string {
	return time.Now().UTC().Add(time.Duration(n) * time.Second).Format(backup.IDLayout)
}

func listIDs(t *testing.T, st backup.Store) []string {
	t.Helper()
	list, err := backup.List(testenv.Ctx(t), st)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, in := range list {
		ids = append(ids, in.ID)
	}
	return ids
}

// TestShares takes backups spread over three shares: nothing is listed
// until the last share lands, two shares landing at once commit the
// backup once, an incremental's deletes are found per share, a share
// stopped midway and run again completes its backup, as does the last
// share run again after its commit failed, and each backup
// restores to the table as it was.
func TestShares(t *testing.T) {
	svc := testenv.Azurite(t).NewService(t, nil)
	for _, sk := range stores {
		t.Run(sk.name, func(t *testing.T) {
			ctx := testenv.Ctx(t)
			st := sk.open(t)
			const n = 200
			tb := newSeededTable(t, svc, n)

			t.Run("full, one share after another", func(t *testing.T) {
				want, _ := snapshot(t, tb)
				id := backupID(0)
				for i, pending := range []int{2, 1, 0} {
					in, err := runShare(ctx, svc, tb.Name(), st, id, []int{1, 3, 2}[i])
					if err != nil {
						t.Fatal(err)
					}
					if in.Pending != pending {
						t.Errorf("share %d: Pending = %d, want %d", i+1, in.Pending, pending)
					}
					if got := listIDs(t, st); pending > 0 && len(got) != 0 {
						t.Errorf("with %d shares pending, List = %q, want none", pending, got)
					}
					if pending == 0 && (in.ID != id || !in.Full || in.Shares != 3 || in.Entities != n || in.Written != n) {
						t.Errorf("last share: ID %s full %v shares %d entities %d written %d; want %s true 3 %d %d",
							in.ID, in.Full, in.Shares, in.Entities, in.Written, id, n, n)
					}
				}
				if got := listIDs(t, st); len(got) != 1 || got[0] != id {
					t.Errorf("List = %q, want [%s]", got, id)
				}
				restoreAndCompare(t, svc, st, id, want)
			})

			t.Run("incremental, two shares landing at once", func(t *testing.T) {
				wantWritten, wantDeleted := change(t, tb, 1, 10, 5, 7, n)
				want, _ := snapshot(t, tb)
				id := backupID(1)
				if _, err := runShare(ctx, svc, tb.Name(), st, id, 1); err != nil {
					t.Fatal(err)
				}
				var wg sync.WaitGroup
				got := make([]backup.Info, 2)
				errs := make([]error, 2)
				for j := range 2 {
					wg.Add(1)
					go func() {
						defer wg.Done()
						got[j], errs[j] = runShare(ctx, svc, tb.Name(), st, id, j+2)
					}()
				}
				wg.Wait()
				complete := 0
				for j := range 2 {
					if errs[j] != nil {
						t.Fatalf("share %d: %v", j+2, errs[j])
					}
					if got[j].Pending == 0 {
						complete++
					}
				}
				if complete == 0 {
					t.Fatalf("neither of the last two shares committed the backup")
				}
				list, err := backup.List(ctx, st)
				if err != nil {
					t.Fatal(err)
				}
				if len(list) != 2 {
					t.Fatalf("List: %d backups, want 2", len(list))
				}
				in := list[1]
				if in.Full || in.Written != int64(wantWritten) || in.Deleted != int64(wantDeleted) || in.Entities != int64(len(want)) {
					t.Errorf("incremental: full %v written %d deleted %d entities %d; want false %d %d %d",
						in.Full, in.Written, in.Deleted, in.Entities, wantWritten, wantDeleted, len(want))
				}
				restoreAndCompare(t, svc, st, id, want)
				again, err := runShare(ctx, svc, tb.Name(), st, id, 2)
				if err != nil || again.ID != id || again.Pending != 0 || again.Entities != in.Entities {
					t.Errorf("share 2 run again after the commit = %s pending %d entities %d, %v; want the backup as listed", again.ID, again.Pending, again.Entities, err)
				}
			})

			t.Run("a share stopped and run again", func(t *testing.T) {
				change(t, tb, 2, 10, 5, 7, n)
				want, _ := snapshot(t, tb)
				id := backupID(2)
				cctx, cancel := context.WithCancel(ctx)
				_, err := runShare(cctx, svc, tb.Name(), &cancelStore{Store: st, n: 1, cancel: cancel}, id, 2)
				cancel()
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("share 2 stopped at its first file: got %v, want context.Canceled", err)
				}
				for _, i := range []int{1, 3, 2} {
					if _, err := runShare(ctx, svc, tb.Name(), st, id, i); err != nil {
						t.Fatalf("share %d: %v", i, err)
					}
				}
				if got := listIDs(t, st); len(got) != 3 || got[2] != id {
					t.Fatalf("List = %q, want 3 backups ending with %s", got, id)
				}
				restoreAndCompare(t, svc, st, id, want)
			})

			t.Run("the commit failing after the last share landed", func(t *testing.T) {
				change(t, tb, 3, 10, 5, 7, n)
				want, _ := snapshot(t, tb)
				id := backupID(3)
				for _, i := range []int{1, 2} {
					if _, err := runShare(ctx, svc, tb.Name(), st, id, i); err != nil {
						t.Fatalf("share %d: %v", i, err)
					}
				}
				failing := errors.New("the commit failed")
				if _, err := runShare(ctx, svc, tb.Name(), failCreate{st, failing}, id, 3); !errors.Is(err, failing) {
					t.Fatalf("share 3 with its commit failing: got %v, want %v", err, failing)
				}
				if got := listIDs(t, st); len(got) != 3 {
					t.Errorf("List after a failed commit = %q, want the 3 earlier backups", got)
				}
				in, err := runShare(ctx, svc, tb.Name(), st, id, 3)
				if err != nil || in.ID != id || in.Pending != 0 {
					t.Fatalf("share 3 run again = %s pending %d, %v; want the backup %s committed", in.ID, in.Pending, err, id)
				}
				restoreAndCompare(t, svc, st, id, want)
			})
		})
	}
}

// failCreate is a store whose Create fails with err, as a machine that
// dies before the backup's manifest is written.
type failCreate struct {
	backup.Store
	err error
}

func (f failCreate) Create(context.Context, string, io.Reader) error { return f.err }

func TestShareRefused(t *testing.T) {
	svc := testenv.Azurite(t).NewService(t, nil)
	st := noStore{t}
	id := backupID(0)
	cases := []struct {
		name  string
		share backup.Share
	}{
		{"index 0", backup.Share{ID: id, Index: 0, Count: 2, To: "m"}},
		{"index past count", backup.Share{ID: id, Index: 3, Count: 2, From: "m"}},
		{"range ending before it starts", backup.Share{ID: id, Index: 2, Count: 3, From: "n", To: "m"}},
		{"first not at the start", backup.Share{ID: id, Index: 1, Count: 2, From: "a", To: "m"}},
		{"last not at the end", backup.Share{ID: id, Index: 2, Count: 2, From: "m", To: "z"}},
		{"not an ID", backup.Share{ID: "yesterday", Index: 1, Count: 1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := backup.Run(testenv.Ctx(t), svc, "orders", st, &backup.Options{Share: &tc.share})
			if !errors.Is(err, tablekit.ErrInvalid) {
				t.Errorf("got %v, want tablekit.ErrInvalid", err)
			}
		})
	}
}
