package main

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tablekit/tablekit/backup"
	"github.com/tablekit/tablekit/devtools/testenv"
)

// tkAll runs the commands at once, each a process of its own, and
// returns their results in order.
func tkAll(t *testing.T, conn string, cmds ...[]string) []result {
	t.Helper()
	out := make([]result, len(cmds))
	var wg sync.WaitGroup
	for i, args := range cmds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = runBinary(t, childEnv(conn), nil, args...)
		}()
	}
	wg.Wait()
	return out
}

// TestE2EBackupShares spreads backups over three processes with one plan:
// a share killed midway leaves nothing listed or restorable while the
// others land, run again it completes the backup, which restores to the
// table; then the three shares of an incremental backup run at once and
// it is listed once, deletes found, equal to the table.
func TestE2EBackupShares(t *testing.T) {
	az := testenv.Azurite(t)
	conn := az.ConnectionString
	src := seed(t, az, partitionKeys("p%02d", 6), 20)
	plan := planFile(t, conn, src, 3)
	dir := t.TempDir() + "/b"
	share := func(i string, extra ...string) []string {
		return append([]string{"backup", src, dir, "--plan", plan, "--segment", i + "/3"}, extra...)
	}
	rows := func() []string {
		r := tk(t, conn, "backups", dir)
		wantCode(t, r, 0, "backups")
		return strings.Split(strings.TrimSpace(r.stdout), "\n")[1:]
	}

	killBackup(t, conn, 1, share("2")...)
	for i, r := range tkAll(t, conn, share("1"), share("3")) {
		wantCode(t, r, 0, "share "+[]string{"1", "3"}[i])
		if !strings.Contains(r.stderr, "to go") {
			t.Errorf("share %d with share 2 killed: stderr %q, want the shares to go", 2*i+1, r.stderr)
		}
	}
	if got := rows(); len(got) != 0 {
		t.Errorf("backups with share 2 killed: %q, want none", got)
	}
	wantCode(t, tk(t, conn, "restore", dir, testenv.TableName(t)), 3, "restore with share 2 killed")

	r := tk(t, conn, share("2")...)
	wantCode(t, r, 0, "share 2 run again")
	first := lastLine(r.stdout)
	if !strings.Contains(r.stderr, "full backup "+first) || !strings.Contains(r.stderr, "120 entities in the table") {
		t.Errorf("share 2 run again: stderr %q, want the full backup %s of 120 entities", r.stderr, first)
	}
	if got := rows(); len(got) != 1 || !strings.HasPrefix(got[0], first) {
		t.Errorf("backups after every share landed: %q, want %s", got, first)
	}
	restored := testenv.TableName(t)
	t.Cleanup(func() { tk(t, conn, "drop", restored, "--yes") })
	wantCode(t, tk(t, conn, "restore", dir, restored), 0, "restore of the shared backup")
	wantCode(t, tk(t, conn, "verify", src, restored), 0, "the table and its restore")

	wantCode(t, tk(t, conn, "delete", src, "--partition", "p04", "--yes"), 0, "delete a partition")
	second := time.Now().UTC().Format(backup.IDLayout)
	committed := 0
	for i, r := range tkAll(t, conn, share("1", "--id", second), share("2", "--id", second), share("3", "--id", second)) {
		wantCode(t, r, 0, "incremental share")
		if lastLine(r.stdout) != second {
			t.Errorf("share %d printed %q, want the ID %s", i+1, lastLine(r.stdout), second)
		}
		if strings.Contains(r.stderr, "incremental backup "+second) {
			committed++
			if !strings.Contains(r.stderr, "20 keys deleted") {
				t.Errorf("share %d: stderr %q, want 20 keys deleted", i+1, r.stderr)
			}
		}
	}
	if committed == 0 {
		t.Errorf("no share of %s reported the backup complete", second)
	}
	if got := rows(); len(got) != 2 || !strings.HasPrefix(got[1], second) || !strings.Contains(got[1], "incremental") {
		t.Errorf("backups after the incremental one: %q, want %s then %s (incremental)", got, first, second)
	}
	wantCode(t, tk(t, conn, "verify", src, dir), 0, "the table and its incremental shared backup")
	wantCode(t, tk(t, conn, "verify", restored, dir, "--at", first), 0, "the first restore and the first backup")
}
