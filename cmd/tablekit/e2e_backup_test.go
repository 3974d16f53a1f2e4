package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

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
	plan := planFile(t, conn, src, 2)
	cases := []struct {
		name string
		args []string
	}{
		{"bad --changes", []string{"backup", src, dir, "--changes", "mtime"}},
		{"--segment without --plan", []string{"backup", src, dir, "--segment", "1/2"}},
		{"--plan without --segment", []string{"backup", src, dir, "--plan", plan}},
		{"--id without --segment", []string{"backup", src, dir, "--id", "20260101T000000.000Z"}},
		{"--segment not of the plan's", []string{"backup", src, dir, "--plan", plan, "--segment", "1/3"}},
		{"--id not an ID", []string{"backup", src, dir, "--plan", plan, "--segment", "1/2", "--id", "tonight"}},
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

// killBackup runs args with TABLEKIT_TEST_STOP=kill:n and fails unless the
// process was killed by SIGKILL (after n files stored, before the next).
func killBackup(t *testing.T, conn string, n int, args ...string) {
	t.Helper()
	how := fmt.Sprintf("kill:%d", n)
	ctx := testenv.Context(t, 2*time.Minute)
	cmd := exec.CommandContext(ctx, binary(t), args...)
	cmd.Env = append(childEnv(conn), stopEnv+"="+how)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if st, ok := ee.Sys().(syscall.WaitStatus); ok && st.Signaled() && st.Signal() == syscall.SIGKILL && ctx.Err() == nil {
			return
		}
	}
	t.Fatalf("%s with %s=%s: %v, want killed by SIGKILL\n%s", args[0], stopEnv, how, err, errb.String())
}

// storedFiles is the files a directory store holds, temporary ones left
// out.
func storedFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasPrefix(d.Name(), ".tmp-") {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return out
}

// TestE2EBackupKilled kills `tablekit backup` (SIGKILL, as a crash would)
// after each file it stores, a full and then an incremental one: no half
// backup is ever listed or restorable, and the next run completes, its
// state the table's.
func TestE2EBackupKilled(t *testing.T) {
	az := testenv.Azurite(t)
	conn := az.ConnectionString
	// A backup stores its data file, its keys, its deleted keys, and last
	// its manifest: kill:3 is after every file but the manifest.
	points := []int{0, 1, 2, 3}
	if testing.Short() {
		points = []int{1, 3}
	}
	for _, n := range points {
		t.Run(fmt.Sprintf("after %d files", n), func(t *testing.T) {
			src := seed(t, az, partitionKeys("p%02d", 3), 40)
			dir := filepath.Join(t.TempDir(), "b")

			killBackup(t, conn, n, "backup", src, dir)
			if got := storedFiles(t, dir); len(got) != n {
				t.Errorf("killed after %d files: the store holds %q", n, got)
			}
			r := tk(t, conn, "backups", dir)
			if rows := strings.Split(strings.TrimSpace(r.stdout), "\n"); r.code != 0 || len(rows) != 1 {
				t.Errorf("backups after a killed first backup: exit %d\n%s\nwant the header alone", r.code, r.stdout)
			}
			wantCode(t, tk(t, conn, "restore", dir, testenv.TableName(t)), 3, "restore of a killed first backup")

			r = tk(t, conn, "backup", src, dir)
			wantCode(t, r, 0, "the backup after the killed one")
			first := lastLine(r.stdout)
			if !strings.Contains(r.stderr, "full backup "+first) {
				t.Errorf("stderr %q, want a full backup", r.stderr)
			}
			wantCode(t, tk(t, conn, "verify", src, dir), 0, "the table and its full backup")

			// Deletes and an add: the incremental backup stores a data
			// file too, so its files are the full one's.
			wantCode(t, tk(t, conn, "delete", src, "--partition", "p01", "--yes"), 0, "delete a partition")
			wantCode(t, tkIn(t, conn, `{"PartitionKey":"p09","RowKey":"new","S":"x"}`+"\n", "put", src), 0, "put an entity")
			killBackup(t, conn, n, "backup", src, dir)
			r = tk(t, conn, "backups", dir)
			if rows := strings.Split(strings.TrimSpace(r.stdout), "\n"); r.code != 0 || len(rows) != 2 || !strings.HasPrefix(rows[1], first) {
				t.Errorf("backups after a killed incremental backup:\n%s\nwant %s alone", r.stdout, first)
			}
			wantCode(t, tk(t, conn, "verify", src, dir), 6, "the table, changed, and the last finished backup")

			r = tk(t, conn, "backup", src, dir)
			wantCode(t, r, 0, "the incremental backup after the killed one")
			second := lastLine(r.stdout)
			if !strings.Contains(r.stderr, "incremental backup "+second) || !strings.Contains(r.stderr, "40 keys deleted") {
				t.Errorf("stderr %q, want an incremental backup with 40 keys deleted", r.stderr)
			}
			wantCode(t, tk(t, conn, "verify", src, dir), 0, "the table and its incremental backup")
			for _, f := range storedFiles(t, dir) {
				if !strings.Contains(f, first) && !strings.Contains(f, second) {
					t.Errorf("%s is left of a killed backup", f)
				}
			}
		})
	}
}

// cronJobArgs reads the backup CronJob's command lines, in the order its
// pod runs them (init containers first), checking what makes it a
// nightly run one at a time.
func cronJobArgs(t *testing.T) [][]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "deploy", "k8s", "backup-cronjob.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, want := range []string{"apiVersion: batch/v1", "kind: CronJob", "concurrencyPolicy: Forbid", "restartPolicy: Never", "initContainers:"} {
		if !strings.Contains(doc, want) {
			t.Errorf("CronJob manifest: no %q", want)
		}
	}
	if !regexp.MustCompile(`(?m)^\s*schedule:\s*"[^"]+"`).MatchString(doc) {
		t.Error("CronJob manifest: no schedule")
	}
	if strings.Index(doc, "initContainers:") > strings.Index(doc, "\n          containers:") {
		t.Error("CronJob manifest: the init containers (the backup) must come first")
	}
	var out [][]string
	for _, m := range regexp.MustCompile(`(?m)^\s*args:\s*(.+)$`).FindAllStringSubmatch(doc, -1) {
		var args []string
		if err := json.Unmarshal([]byte(m[1]), &args); err != nil {
			t.Fatalf("CronJob manifest: args: %v", err)
		}
		out = append(out, args)
	}
	if len(out) != 2 || out[0][0] != "backup" || out[1][0] != "backups" {
		t.Fatalf("CronJob manifest: args %q, want a backup and then backups --keep", out)
	}
	return out
}

// TestE2EBackupCronJob runs the CronJob's command lines as three nights
// would, the table changed between them, against Azurite's blob service:
// each night's backup is the table's state, and --keep bounds the chain.
func TestE2EBackupCronJob(t *testing.T) {
	az := testenv.Azurite(t)
	blob := testenv.AzuriteBlob(t)
	conn := az.ConnectionString
	src := seed(t, az, partitionKeys("p%02d", 3), 20)
	dest := blob.Endpoint + "/" + testenv.ContainerName(t) + "/events"
	lines := cronJobArgs(t)
	keep := 0
	for i, a := range lines[1] {
		if a == "--keep" && i+1 < len(lines[1]) {
			keep, _ = strconv.Atoi(lines[1][i+1])
		}
	}
	if keep < 1 {
		t.Fatalf("CronJob manifest: backups %q, want --keep N", lines[1])
	}
	// Nights beyond --keep: the first is folded away.
	nights := keep + 1
	if testing.Short() {
		nights = 3
	}
	for night := range nights {
		if night > 0 {
			line := fmt.Sprintf(`{"PartitionKey":"p00","RowKey":"night%02d","N":%d}`, night, night)
			wantCode(t, tkIn(t, conn, line+"\n", "put", src), 0, "a change during the day")
		}
		for _, args := range lines {
			args = slices.Clone(args)
			for k, a := range args {
				switch {
				case a == "events":
					args[k] = src
				case strings.HasPrefix(a, "https://ACCOUNT.blob.core.windows.net/"):
					args[k] = dest
				}
			}
			wantCode(t, tk(t, conn, args...), 0, fmt.Sprintf("night %d: %s", night, args[0]))
		}
		wantCode(t, tk(t, conn, "verify", src, dest), 0, fmt.Sprintf("night %d: the table and its backup", night))
	}
	r := tk(t, conn, "backups", dest)
	wantCode(t, r, 0, "backups")
	if rows := strings.Split(strings.TrimSpace(r.stdout), "\n"); len(rows)-1 != min(nights, keep) {
		t.Errorf("after %d nights with --keep %d:\n%s\nwant %d backups", nights, keep, r.stdout, min(nights, keep))
	}
}

// TestE2ERestoreResumed kills `tablekit restore --checkpoint` (SIGKILL)
// at its first committed transaction; the same command resumes it, to
// the backup it started with though a backup was taken since, and a run
// after that finds the job complete.
func TestE2ERestoreResumed(t *testing.T) {
	az := testenv.Azurite(t)
	conn := az.ConnectionString
	const n = 600
	src := seed(t, az, partitionKeys("p%02d", 6), n/6)
	dir := filepath.Join(t.TempDir(), "b")
	r := tk(t, conn, "backup", src, dir)
	wantCode(t, r, 0, "backup")
	first := lastLine(r.stdout)
	ckpt0 := filepath.Join(t.TempDir(), "refused.ckpt")
	wantCode(t, tk(t, conn, "restore", dir, src, "--checkpoint", ckpt0), 2, "restore --checkpoint into a table that holds entities")
	if _, err := os.Stat(ckpt0); !os.IsNotExist(err) {
		t.Errorf("a refused restore saved its checkpoint: %v", err)
	}
	later := false // a second backup taken once
	for _, mode := range []string{"empty", "replace"} {
		t.Run(mode, func(t *testing.T) {
			dst := testenv.TableName(t)
			t.Cleanup(func() { tk(t, conn, "drop", dst, "--yes") })
			ckpt := filepath.Join(t.TempDir(), "restore.ckpt")
			args := []string{"restore", dir, dst, "--checkpoint", ckpt, "--parallel", "1", "--mode", mode}
			if later {
				args = append(args, "--at", first) // the last is another one by now
			}
			killWhenCheckpointed(t, conn, ckpt, args...)
			if got := count(t, conn, dst); got >= n {
				t.Errorf("killed at its first transaction, the restore wrote %d entities, want fewer than %d", got, n)
			}
			if !later {
				later = true
				wantCode(t, tkIn(t, conn, `{"PartitionKey":"p00","RowKey":"later","S":"x"}`+"\n", "put", src), 0, "put an entity")
				wantCode(t, tk(t, conn, "backup", src, dir), 0, "a backup taken since")
			}
			r := tk(t, conn, args...)
			wantCode(t, r, 0, "the restore resumed")
			if !strings.Contains(r.stderr, "resuming the restore of backup "+first) {
				t.Errorf("stderr %q, want it to resume backup %s", r.stderr, first)
			}
			wantCode(t, tk(t, conn, "verify", dst, dir, "--at", first), 0, "the restored table and the backup it started with")
			wantCode(t, tk(t, conn, args...), 7, "the restore run again")
		})
	}
}
