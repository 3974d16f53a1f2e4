package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tablekit/tablekit/devtools/testenv"
)

// lastLine is the last line of out: backup prints the new ID there.
func lastLine(out string) string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	return lines[len(lines)-1]
}

// TestE2EBackupRestore backs up a table twice (full, then incremental
// after deletes), to a directory and to a blob container, lists the
// backups, restores each into a new table and verifies it against what
// the source held then.
func TestE2EBackupRestore(t *testing.T) {
	az := testenv.Azurite(t)
	blob := testenv.AzuriteBlob(t)
	dests := []struct{ name, dest string }{
		{"dir", filepath.Join(t.TempDir(), "orders")},
		{"blob", blob.Endpoint + "/" + testenv.ContainerName(t) + "/nightly/orders"},
	}
	for _, d := range dests {
		t.Run(d.name, func(t *testing.T) {
			conn := az.ConnectionString
			src := seed(t, az, partitionKeys("p%02d", 4), 50)
			r := tk(t, conn, "backup", src, d.dest)
			wantCode(t, r, 0, "first backup")
			first := lastLine(r.stdout)
			if !strings.Contains(r.stderr, "full backup "+first) {
				t.Errorf("first backup: stderr %q, want a full backup %s", r.stderr, first)
			}
			copy1 := testenv.TableName(t)
			wantCode(t, tk(t, conn, "restore", d.dest, copy1), 0, "restore of the first")
			t.Cleanup(func() { tk(t, conn, "drop", copy1, "--yes") })

			wantCode(t, tk(t, conn, "delete", src, "--partition", "p01", "--yes"), 0, "delete a partition")
			r = tk(t, conn, "backup", src, d.dest)
			wantCode(t, r, 0, "second backup")
			second := lastLine(r.stdout)
			if !strings.Contains(r.stderr, "incremental backup "+second) || !strings.Contains(r.stderr, "50 keys deleted") {
				t.Errorf("second backup: stderr %q, want an incremental one with 50 keys deleted", r.stderr)
			}
			r = tk(t, conn, "backups", d.dest)
			wantCode(t, r, 0, "backups")
			rows := strings.Split(strings.TrimSpace(r.stdout), "\n")
			if len(rows) != 3 || !strings.HasPrefix(rows[1], first) || !strings.HasPrefix(rows[2], second) || !strings.Contains(rows[2], "incremental") {
				t.Errorf("backups printed\n%s\nwant a header, %s and %s (incremental)", r.stdout, first, second)
			}

			// verify against a backup's state: the last is the table as
			// it is; the first still holds the partition deleted since.
			wantCode(t, tk(t, conn, "verify", src, d.dest), 0, "verify with the last backup")
			wantCode(t, tk(t, conn, "verify", copy1, d.dest, "--at", first), 0, "verify the first restore with the first backup")
			wantCode(t, tk(t, conn, "verify", src, d.dest, "--at", first, "--partition", "p00"), 0, "verify --partition p00 with the first backup")
			r = tk(t, conn, "verify", src, d.dest, "--at", first)
			wantCode(t, r, 6, "verify with the first backup, before the delete")
			if !strings.Contains(r.stdout, "extra    50") || !strings.Contains(r.stderr, "backup "+first) {
				t.Errorf("verify --at %s: stdout %q, stderr %q; want 50 extra, the backup named", first, r.stdout, r.stderr)
			}

			copy2 := testenv.TableName(t)
			t.Cleanup(func() { tk(t, conn, "drop", copy2, "--yes") })
			wantCode(t, tk(t, conn, "restore", d.dest, copy2, "--at", first), 0, "restore --at the first")
			wantCode(t, tk(t, conn, "verify", copy1, copy2), 0, "the first restored twice")
			copy3 := testenv.TableName(t)
			t.Cleanup(func() { tk(t, conn, "drop", copy3, "--yes") })
			wantCode(t, tk(t, conn, "restore", d.dest, copy3), 0, "restore of the last")
			wantCode(t, tk(t, conn, "verify", src, copy3), 0, "the source and its last backup")

			r = tk(t, conn, "restore", d.dest, copy3)
			wantCode(t, r, 2, "restore into a table that holds entities")
			if !strings.Contains(r.stderr, "holds entities") || !strings.Contains(r.stderr, "--mode replace") {
				t.Errorf("stderr %q, want it to say the table holds entities and name --mode", r.stderr)
			}
			wantCode(t, tk(t, conn, "restore", d.dest, copy3, "--mode", "replace", "--at", first), 0, "restore --mode replace")
			wantCode(t, tk(t, conn, "verify", copy1, copy3), 0, "replaced by the first")

			r = tk(t, conn, "backups", d.dest, "--keep", "1")
			wantCode(t, r, 0, "backups --keep 1")
			if rows := strings.Split(strings.TrimSpace(r.stdout), "\n"); len(rows) != 2 || !strings.HasPrefix(rows[1], second+"-full") {
				t.Errorf("after --keep 1:\n%s\nwant the fold of %s alone", r.stdout, second)
			}
		})
	}
}

// TestE2EBackupRefusals: bad command lines exit 2 before anything is
// read or written; a damaged file exits 1 naming it.
func TestE2EBackupRefusals(t *testing.T) {
	az := testenv.Azurite(t)
	conn := az.ConnectionString
	src := seed(t, az, partitionKeys("p%02d", 2), 10)
	dir := filepath.Join(t.TempDir(), "b")
	cases := []struct {
		name string
		args []string
	}{
		{"bad --changes", []string{"backup", src, dir, "--changes", "mtime"}},
		{"--parallel too many", []string{"backup", src, dir, "--parallel", "1000"}},
		{"--dest-sas with a directory", []string{"backup", src, dir, "--dest-sas", "sv=x&sig=y"}},
		{"DEST missing", []string{"backup", src}},
		{"bad --mode", []string{"restore", dir, "copy", "--mode", "merge"}},
		{"bad table name", []string{"restore", dir, "no-dashes"}},
		{"--at not an ID", []string{"restore", dir, "copy", "--at", "../x"}},
		{"--timestamp-property Timestamp", []string{"restore", dir, "copy", "--timestamp-property", "Timestamp"}},
		{"--keep -1", []string{"backups", dir, "--keep", "-1"}},
		{"verify --at with a table", []string{"verify", src, "other", "--at", "20260101T000000.000Z"}},
		{"verify --filter with a backup", []string{"verify", src, t.TempDir(), "--filter", "Qty gt 1"}},
		{"verify --at not an ID", []string{"verify", src, t.TempDir(), "--at", "../x"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wantCode(t, tk(t, conn, tc.args...), 2, strings.Join(tc.args, " "))
		})
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("a refused command wrote %s: %v", dir, err)
	}

	empty := t.TempDir()
	for _, args := range [][]string{
		{"restore", empty, testenv.TableName(t)},
		{"verify", src, empty},
	} {
		r := tk(t, conn, args...)
		wantCode(t, r, 3, strings.Join(args[:1], " ")+" of a directory without backups")
		if !strings.Contains(r.stderr, "no such backup") {
			t.Errorf("%s: stderr %q, want it to say there is no backup", args[0], r.stderr)
		}
	}

	r := tk(t, conn, "backup", src, dir)
	wantCode(t, r, 0, "backup")
	id := lastLine(r.stdout)
	data := filepath.Join(dir, "files", id, "data-0000.jsonl.gz")
	b, err := os.ReadFile(data)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 1
	if err := os.WriteFile(data, b, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"restore", dir, testenv.TableName(t)},
		{"verify", src, dir},
	} {
		r = tk(t, conn, args...)
		wantCode(t, r, 8, args[0]+" of a damaged backup")
		if !strings.Contains(r.stderr, "files/"+id+"/data-0000.jsonl.gz") {
			t.Errorf("%s: stderr %q does not name the damaged file", args[0], r.stderr)
		}
	}
}
