package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
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
	"github.com/tablekit/tablekit/table"
)

// killWhenCheckpointed runs the command with TABLEKIT_TEST_STOP=kill:1: it
// kills itself (SIGKILL, as a crash would) at its first step after its
// first checkpoint save, so some work is saved and some done after the
// save is not. It fails unless the run was killed so.
func killWhenCheckpointed(t *testing.T, conn, ckpt string, args ...string) {
	t.Helper()
	killWhenCheckpointedEnv(t, childEnv(conn), ckpt, args...)
}

// killWhenCheckpointedEnv is killWhenCheckpointed with the environment env.
func killWhenCheckpointedEnv(t *testing.T, env []string, ckpt string, args ...string) {
	t.Helper()
	stopRun(t, env, "kill:1", ckpt, args...)
}

// interrupt runs the command with TABLEKIT_TEST_STOP=int:0: it sends
// itself SIGINT (Ctrl-C) at its first step (an entity read or compared, a
// transaction committed). It fails unless the run stopped with
// exitInterrupted and its checkpoint saved; it returns the run's stderr.
func interrupt(t *testing.T, env []string, ckpt string, args ...string) string {
	t.Helper()
	return stopRun(t, env, "int:0", ckpt, args...)
}

// stopRun runs the command with TABLEKIT_TEST_STOP=how (int:N or kill:N)
// and checks that it stopped as asked, leaving a checkpoint ckpt of a job
// not complete; it returns the run's stderr. A run that finished instead
// fails the test: it was not the interrupted run the test is about.
// Import and copy write rounds of 100 entities (TABLEKIT_TEST_ROUND_OPS,
// unless env sets it), so that a few hundred make rounds to stop between.
func stopRun(t *testing.T, env []string, how, ckpt string, args ...string) string {
	t.Helper()
	ctx := testenv.Context(t, 2*time.Minute)
	cmd := exec.CommandContext(ctx, binary(t), args...)
	cmd.Env = append(append([]string{roundOpsEnv + "=100"}, env...), stopEnv+"="+how)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("%s with %s=%s: %v, want it stopped\n%s", args[0], stopEnv, how, err, errb.String())
	}
	ws, _ := ee.Sys().(syscall.WaitStatus)
	if strings.HasPrefix(how, "kill:") {
		if !ws.Signaled() || ws.Signal() != syscall.SIGKILL || ctx.Err() != nil {
			t.Fatalf("%s with %s=%s: %v, want killed by SIGKILL\n%s", args[0], stopEnv, how, err, errb.String())
		}
	} else if got := ee.ExitCode(); got != exitInterrupted {
		t.Fatalf("%s with %s=%s: exit %d, want %d\n%s", args[0], stopEnv, how, got, exitInterrupted, errb.String())
	}
	if cp := readCheckpoint(t, ckpt); cp.Complete {
		t.Fatalf("%s stopped with %s=%s, but its checkpoint says complete\n%s", args[0], stopEnv, how, errb.String())
	}
	return errb.String()
}

// readCheckpoint reads a checkpoint file as the command saved it.
func readCheckpoint(t *testing.T, path string) Checkpoint {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("checkpoint: %v", err)
	}
	var cp Checkpoint
	if err := json.Unmarshal(b, &cp); err != nil {
		t.Fatalf("checkpoint %s: %v", path, err)
	}
	return cp
}

// keysOf reads a JSON Lines file's keys, failing on a torn line.
func keysOf(t *testing.T, file string) map[string]int {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	keys := map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 4<<20)
	for n := 1; sc.Scan(); n++ {
		var k struct{ PartitionKey, RowKey string }
		if err := json.Unmarshal(sc.Bytes(), &k); err != nil {
			t.Fatalf("%s line %d: %v: %.80q", file, n, err, sc.Text())
		}
		keys[k.PartitionKey+"/"+k.RowKey]++
	}
	return keys
}

func wantOnce(t *testing.T, what string, keys map[string]int, want int) {
	t.Helper()
	if len(keys) != want {
		t.Errorf("%s: %d distinct entities, want %d", what, len(keys), want)
	}
	for k, n := range keys {
		if n != 1 {
			t.Errorf("%s: %s %d times, want once", what, k, n)
		}
	}
}

func bigSize(t *testing.T) (parts, per int) {
	if testing.Short() {
		return 20, 150 // 3,000 entities
	}
	return 50, 400
}

// TestE2EKillAndResume kills an export, an import and a copy with SIGKILL
// once they saved a checkpoint; the same command again must finish the job
// with every entity exactly once. The import adds (--mode add): the
// resumed run finds the entities the killed one wrote after its last
// checkpoint, and must count them as its own, not as rejects.
func TestE2EKillAndResume(t *testing.T) {
	az := testenv.Azurite(t)
	cs := az.ConnectionString
	np, per := bigSize(t)
	parts := partitionKeys("p%03d", np)
	name := seed(t, az, parts, per)
	total := np * per
	dir := t.TempDir()
	file := filepath.Join(dir, "all.jsonl")
	// The killed run saves after every entity, so that it is killed early
	// in the job; the resumed run saves once a second (the job is the same:
	// how often it saves is not part of it), since a save syncs the output
	// and the checkpoint, and a save per entity made the resumed export
	// most of this test's time.
	fast := []string{"--checkpoint-every", "1ms", "--parallel", "1"}
	resume := func(args []string) []string { return append(slices.Clip(args), "--checkpoint-every", "1s") }

	t.Run("export", func(t *testing.T) {
		ckpt := filepath.Join(dir, "exp.ckpt")
		args := append([]string{"export", name, "-o", file, "--checkpoint", ckpt}, fast...)
		killWhenCheckpointed(t, cs, ckpt, args...)
		wantCode(t, tk(t, cs, resume(args)...), 0, "resumed export")
		wantOnce(t, "export", keysOf(t, file), total)
	})
	t.Run("import", func(t *testing.T) {
		dst, dname := newDynTable(t, cs)
		ckpt := filepath.Join(dir, "imp.ckpt")
		args := append([]string{"import", dname, file, "--checkpoint", ckpt, "--mode", "add"}, fast...)
		killWhenCheckpointed(t, cs, ckpt, args...)
		wantCode(t, tk(t, cs, resume(args)...), 0, "resumed import")
		checkSeeded(t, readTable(t, dst), total)
	})
	t.Run("copy", func(t *testing.T) {
		dname := testenv.TableName(t)
		dst := dynTableOf(t, cs, dname)
		t.Cleanup(func() { dropTable(t, cs, dname) })
		ckpt := filepath.Join(dir, "copy.ckpt")
		args := append([]string{"copy", name, dname, "--checkpoint", ckpt}, fast...)
		killWhenCheckpointed(t, cs, ckpt, args...)
		wantCode(t, tk(t, cs, resume(args)...), 0, "resumed copy")
		checkSeeded(t, readTable(t, dst), total)
	})
}

// checkSeeded checks a copy of a seeded table: N is the RowKey's number.
func checkSeeded(t *testing.T, got map[string]table.Entity, total int) {
	t.Helper()
	if len(got) != total {
		t.Errorf("%d entities, want %d", len(got), total)
	}
	for k, e := range got {
		var n int32
		fmt.Sscanf(e.RowKey, "%d", &n)
		if e.Properties["N"] != n {
			t.Errorf("%s: N = %#v, want %d", k, e.Properties["N"], n)
		}
	}
}

// TestE2ESegmentsExport exports each share of a plan of n: together the
// shares hold every entity exactly once.
func TestE2ESegmentsExport(t *testing.T) {
	az := testenv.Azurite(t)
	cs := az.ConnectionString
	name := seed(t, az, []string{"0a", "3f", "Alice", "bob", "zz9", "~x", "é"}, 20)
	for _, n := range []int{2, 3} {
		plan := planFile(t, cs, name, n)
		union := map[string]int{}
		for i := 1; i <= n; i++ {
			file := filepath.Join(t.TempDir(), "share.jsonl")
			wantCode(t, tk(t, cs, "export", name, "-o", file, "--plan", plan, "--segment", fmt.Sprintf("%d/%d", i, n)), 0, "export share")
			for k, c := range keysOf(t, file) {
				union[k] += c
			}
		}
		wantOnce(t, fmt.Sprintf("%d shares", n), union, 140)
	}
}

// TestE2ERejects imports lines that cannot be written among good ones:
// each is reported with its line number, the good ones are all stored,
// and the exit status says something was rejected.
func TestE2ERejects(t *testing.T) {
	az := testenv.Azurite(t)
	cs := az.ConnectionString
	dst, dname := newDynTable(t, cs)
	big := strings.Repeat("x", 40000) // over 64 KiB as UTF-16
	lines := []string{
		`{"PartitionKey":"p","RowKey":"1","A":1}`,
		`{"PartitionKey":"p","RowKey":"2",`,
		`{"PartitionKey":"p","RowKey":"3","A":"x","A@odata.type":"Edm.Nope"}`,
		`{"PartitionKey":"p","RowKey":"4","A":"abc","A@odata.type":"Edm.Int64"}`,
		`{"PartitionKey":"p/q","RowKey":"5"}`,
		`{"PartitionKey":"p","RowKey":"6","A":"` + big + `"}`,
		``,
		`{"PartitionKey":"p","RowKey":"8","A":2}`,
		azuriteRefuses(),
		`{"PartitionKey":"p","RowKey":"10","A":3}`,
	}
	in := filepath.Join(t.TempDir(), "in.jsonl")
	rej := filepath.Join(t.TempDir(), "rejects.jsonl")
	if err := os.WriteFile(in, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := tk(t, cs, "import", dname, in, "--rejects", rej)
	wantCode(t, r, exitFailed, "import with rejects")
	b, err := os.ReadFile(rej)
	if err != nil {
		t.Fatal(err)
	}
	var gotLines []int64
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var rj reject
		if err := json.Unmarshal([]byte(l), &rj); err != nil || rj.Reason == "" {
			t.Fatalf("rejects line %q: %v", l, err)
		}
		gotLines = append(gotLines, rj.Line)
		if !strings.Contains(r.stderr, fmt.Sprintf("line %d: ", rj.Line)) {
			t.Errorf("stderr does not report line %d", rj.Line)
		}
	}
	if want := []int64{2, 3, 4, 5, 6, 9}; fmt.Sprint(gotLines) != fmt.Sprint(want) {
		t.Errorf("rejected lines %v, want %v\n%s", gotLines, want, r.stderr)
	}
	got := readTable(t, dst)
	if len(got) != 3 || got["p/1"].Properties["A"] != int32(1) || got["p/8"].Properties["A"] != int32(2) || got["p/10"].Properties["A"] != int32(3) {
		t.Errorf("stored %d entities, want p/1, p/8 and p/10", len(got))
	}
}

// azuriteRefuses is a line that the library's checks accept and Azurite
// refuses inside the transaction: 15 binary values of 64 KiB are under the
// service's 1 MiB by its size formula but over it as base64 JSON, which is
// what Azurite measures. The transaction's other entities must be written.
func azuriteRefuses() string {
	var b strings.Builder
	b.WriteString(`{"PartitionKey":"p","RowKey":"9"`)
	v := base64.StdEncoding.EncodeToString(make([]byte, 64<<10))
	for i := range 15 {
		fmt.Fprintf(&b, `,"B%d@odata.type":"Edm.Binary","B%d":%q`, i, i, v)
	}
	return b.String() + "}"
}

// editCheckpoint rewrites a checkpoint file as edit says.
func editCheckpoint(t *testing.T, path string, edit func(*Checkpoint)) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cp Checkpoint
	if err := json.Unmarshal(b, &cp); err != nil {
		t.Fatal(err)
	}
	edit(&cp)
	if err := (checkpointFile{path}).save(cp); err != nil {
		t.Fatal(err)
	}
}

// TestE2EPositionStartAndEnd resumes from the two positions a scan's
// token alone cannot tell apart: a copy stopped in its first round (some
// entities written, the position still the start) must copy everything,
// and a count whose scan had read everything prints what it counted.
func TestE2EPositionStartAndEnd(t *testing.T) {
	az := testenv.Azurite(t)
	cs := az.ConnectionString
	name := seed(t, az, []string{"a", "b", "c"}, 50)
	dir := t.TempDir()

	dst, dname := newDynTable(t, cs)
	ckpt := filepath.Join(dir, "copy.ckpt")
	wantCode(t, tk(t, cs, "copy", name, dname, "--checkpoint", ckpt), 0, "copy")
	editCheckpoint(t, ckpt, func(cp *Checkpoint) { cp.Complete, cp.Token, cp.Done = false, "", 7 })
	wantCode(t, tk(t, cs, "delete", dname, "--filter", "N ge 0", "--yes"), 0, "empty the copy")
	r := tk(t, cs, "copy", name, dname, "--checkpoint", ckpt)
	wantCode(t, r, 0, "copy from the start")
	if got, want := len(readTable(t, dst)), 150; got != want {
		t.Errorf("copy resumed from the start: got %d entities, want %d\n%s", got, want, r.stderr)
	}

	ckpt = filepath.Join(dir, "count.ckpt")
	if got := count(t, cs, name, "--checkpoint", ckpt); got != 150 {
		t.Fatalf("count = %d, want 150", got)
	}
	editCheckpoint(t, ckpt, func(cp *Checkpoint) { cp.Complete, cp.Token = false, scanEnd })
	r = tk(t, cs, "count", name, "--checkpoint", ckpt)
	wantCode(t, r, 0, "count read to its end")
	if got, want := strings.TrimSpace(r.stdout), "150"; got != want || !strings.Contains(r.stderr, "complete") {
		t.Errorf("count read to its end: got %q, %q; want %s, complete", got, r.stderr, want)
	}
}

// summaryRe is a job's summary line: its entities, and those of this run
// when it resumed an earlier one.
var summaryRe = regexp.MustCompile(`(?m)^tablekit: (\w+): (\d+) entities(?: \((\d+) in this run\))?`)

// resumedCounts reads the summary line of a resumed run: all the job's
// entities and this run's.
func resumedCounts(t *testing.T, stderr string) (all, thisRun int) {
	t.Helper()
	m := summaryRe.FindStringSubmatch(stderr)
	if m == nil || m[3] == "" {
		t.Fatalf("no summary of a resumed run in:\n%s", stderr)
	}
	all, _ = strconv.Atoi(m[2])
	thisRun, _ = strconv.Atoi(m[3])
	return all, thisRun
}

// TestE2EResumeCounts stops an import, an export and a copy with SIGINT at
// their first step after their first checkpoint save (import and copy:
// once a transaction of their second round committed, the rest of the
// round not yet), then runs each again: the checkpoint counts exactly what
// is before its position, and the resumed run's summary counts each entity
// once, "N entities (M in this run)" with N the job's total.
func TestE2EResumeCounts(t *testing.T) {
	az := testenv.Azurite(t)
	cs := az.ConnectionString
	const parts, per = 10, 60 // a round of 100 spans partitions
	const total = parts * per
	env := append(childEnv(cs), roundOpsEnv+"=100")
	dir := t.TempDir()
	// Lines go round the partitions, so that a round of 100 is several
	// transactions.
	var lines []string
	for i := range total {
		lines = append(lines, fmt.Sprintf(`{"PartitionKey":"p%d","RowKey":"%04d","N":%d}`, i%parts, i, i))
	}
	input := filepath.Join(dir, "in.jsonl")
	if err := os.WriteFile(input, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// resumed runs the stopped command again, with the default rounds and
	// saves (neither is part of the job), and checks its summary.
	resumed := func(t *testing.T, cp Checkpoint, args []string) {
		t.Helper()
		r := tk(t, cs, args[:len(args)-2]...)
		wantCode(t, r, 0, "resumed "+args[0])
		all, thisRun := resumedCounts(t, r.stderr)
		if all != total || thisRun != total-int(cp.Done) {
			t.Errorf("summary: %d entities (%d in this run), want %d (%d in this run)", all, thisRun, total, total-int(cp.Done))
		}
	}
	t.Run("import", func(t *testing.T) {
		dst, dname := newDynTable(t, cs)
		ckpt := filepath.Join(dir, "imp.ckpt")
		args := []string{"import", dname, input, "--checkpoint", ckpt, "--parallel", "2", "--checkpoint-every", "1ns"}
		stopRun(t, env, "int:1", ckpt, args...)
		cp := readCheckpoint(t, ckpt)
		next, err := strconv.ParseInt(strings.TrimPrefix(cp.Token, "line:"), 10, 64)
		if err != nil || cp.Done == 0 || cp.Done != next-1 {
			t.Fatalf("checkpoint at the interruption: %d entities before %q, want the lines before it", cp.Done, cp.Token)
		}
		if stored := len(readTable(t, dst)); stored <= int(cp.Done) {
			t.Fatalf("%d entities stored at the interruption, want more than the checkpoint's %d: the round was not cut", stored, cp.Done)
		}
		resumed(t, cp, args)
		checkSeeded(t, readTable(t, dst), total)
	})
	name := seed(t, az, partitionKeys("p%d", parts), per)
	t.Run("export", func(t *testing.T) {
		file, ckpt := filepath.Join(dir, "out.jsonl"), filepath.Join(dir, "exp.ckpt")
		args := []string{"export", name, "-o", file, "--checkpoint", ckpt, "--parallel", "1", "--checkpoint-every", "1ns"}
		stopRun(t, env, "int:1", ckpt, args...)
		cp := readCheckpoint(t, ckpt)
		if got := len(keysOf(t, file)); cp.Done == 0 || got != int(cp.Done) {
			t.Fatalf("at the interruption: %d entities in the file, the checkpoint says %d", got, cp.Done)
		}
		resumed(t, cp, args)
		wantOnce(t, "export", keysOf(t, file), total)
	})
	t.Run("copy", func(t *testing.T) {
		dst, dname := newDynTable(t, cs)
		ckpt := filepath.Join(dir, "copy.ckpt")
		args := []string{"copy", name, dname, "--checkpoint", ckpt, "--parallel", "2", "--checkpoint-every", "1ns"}
		stopRun(t, env, "int:1", ckpt, args...)
		cp := readCheckpoint(t, ckpt)
		if stored := len(readTable(t, dst)); cp.Done == 0 || stored <= int(cp.Done) {
			t.Fatalf("%d entities stored at the interruption, the checkpoint says %d: want a round cut after a save", stored, cp.Done)
		}
		resumed(t, cp, args)
		checkSeeded(t, readTable(t, dst), total)
	})
}

// TestE2ECheckpointOfAJob runs an export, an import and a copy with their
// checkpoints, then again: the same job finds its checkpoint complete
// (exit 7, naming the output, writing nothing), another job's checkpoint
// is refused before any request (exit 2, naming what differs), and
// --restart does the job again from the start.
func TestE2ECheckpointOfAJob(t *testing.T) {
	az := testenv.Azurite(t)
	cs := az.ConnectionString
	name := seed(t, az, []string{"a", "b"}, 30)
	other := seed(t, az, []string{"c"}, 5)
	dir := t.TempDir()
	out, out2 := filepath.Join(dir, "out.jsonl"), filepath.Join(dir, "out2.jsonl")
	exp, imp, cpy := filepath.Join(dir, "exp.ckpt"), filepath.Join(dir, "imp.ckpt"), filepath.Join(dir, "copy.ckpt")
	_, dname := newDynTable(t, cs)
	wantCode(t, tk(t, cs, "export", name, "-o", out, "--checkpoint", exp), 0, "export")
	wantCode(t, tk(t, cs, "import", dname, out, "--checkpoint", imp), 0, "import")
	wantCode(t, tk(t, cs, "copy", name, dname, "--checkpoint", cpy), 0, "copy")
	written, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"export again", []string{"export", name, "-o", out, "--checkpoint", exp}, exitComplete,
			"this export is already complete (60 entities, output " + out + ")"},
		{"import again", []string{"import", dname, out, "--checkpoint", imp}, exitComplete,
			"this import is already complete (60 entities, table " + dname + ", 0 already there, 0 rejects)"},
		{"copy again", []string{"copy", name, dname, "--checkpoint", cpy}, exitComplete,
			"this copy is already complete (60 entities, target table " + dname + ")"},
		{"another table", []string{"export", other, "-o", out, "--checkpoint", exp}, exitUsage,
			"of table " + name + ", not " + other},
		{"another output", []string{"export", name, "-o", out2, "--checkpoint", exp}, exitUsage,
			"of output " + out + ", not " + out2},
		{"another filter", []string{"export", name, "-o", out, "--checkpoint", exp, "--filter", "N lt 3"}, exitUsage,
			`of filter none, not "N lt 3"`},
		{"another command", []string{"import", name, out, "--checkpoint", exp}, exitUsage,
			"of command export, not import"},
		{"another input", []string{"import", dname, out2, "--checkpoint", imp}, exitUsage,
			"of input " + out + ", not " + out2},
		{"another target", []string{"copy", name, other, "--checkpoint", cpy}, exitUsage,
			"of target table " + dname + ", not " + other},
		{"restart without a checkpoint", []string{"export", name, "-o", out, "--restart"}, exitUsage,
			"--restart needs --checkpoint"},
	}
	for _, tt := range tests {
		r := tk(t, cs, tt.args...)
		if r.code != tt.code || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("%s: exit %d, %q; want exit %d saying %q", tt.name, r.code, r.stderr, tt.code, tt.want)
		}
	}
	if got, err := os.ReadFile(out); err != nil || !bytes.Equal(got, written) {
		t.Errorf("the output changed: %d bytes, want the %d the export wrote (%v)", len(got), len(written), err)
	}
	if _, err := os.Stat(out2); err == nil {
		t.Errorf("%s was created by a refused run", out2)
	}

	// The table grows; --restart exports it all again, into the same file.
	if _, err := dynTableOf(t, cs, name).Upsert(context.Background(), table.NewEntity("b", "0030"), table.Replace); err != nil {
		t.Fatal(err)
	}
	r := tk(t, cs, "export", name, "-o", out, "--checkpoint", exp, "--restart")
	wantCode(t, r, 0, "export --restart")
	wantOnce(t, "export --restart", keysOf(t, out), 61)
	if cp := readCheckpoint(t, exp); !cp.Complete || cp.Done != 61 || strings.Contains(r.stderr, "in this run") {
		t.Errorf("after --restart: checkpoint complete %v with %d entities, summary %q; want complete with 61, not a resumed run", cp.Complete, cp.Done, r.stderr)
	}
	// --restart replaces a checkpoint it cannot read; without it, that
	// is refused.
	if err := os.WriteFile(exp, []byte("{torn"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = tk(t, cs, "export", name, "-o", out, "--checkpoint", exp)
	if r.code != exitUsage || !strings.Contains(r.stderr, "unreadable") {
		t.Errorf("a torn checkpoint: exit %d, %q; want exit %d saying unreadable", r.code, r.stderr, exitUsage)
	}
	wantCode(t, tk(t, cs, "export", name, "-o", out, "--checkpoint", exp, "--restart"), 0, "export --restart over a torn checkpoint")
	wantOnce(t, "export --restart over a torn checkpoint", keysOf(t, out), 61)
}

// TestE2EExportRefusedEntityNotPassed stops a CSV export after its first
// pass (the columns), adds a property to the last entity, and resumes: the
// output refuses that entity (its column is not in the header), and the
// run must not save a position past it. With the property gone again, the
// same command completes the file with every entity, that one included.
func TestE2EExportRefusedEntityNotPassed(t *testing.T) {
	az := testenv.Azurite(t)
	cs := az.ConnectionString
	name := seed(t, az, []string{"a", "b"}, 30)
	dir := t.TempDir()
	file, ckpt := filepath.Join(dir, "out.csv"), filepath.Join(dir, "exp.ckpt")
	// Saves only at the end of the first pass, then at the end: the kill
	// comes at the first entity of the second.
	args := []string{"export", name, "-o", file, "--checkpoint", ckpt, "--parallel", "1", "--checkpoint-every", "1h"}
	killWhenCheckpointed(t, cs, ckpt, args...)
	tbl := dynTableOf(t, cs, name)
	last := table.NewEntity("b", "0029")
	last.Properties["N"] = int32(29)
	late := table.NewEntity("b", "0029")
	late.Properties["N"], late.Properties["Late"] = int32(29), "x"
	ctx := testenv.Ctx(t)
	if _, err := tbl.Upsert(ctx, late, table.Replace); err != nil {
		t.Fatal(err)
	}
	r := tk(t, cs, args...)
	if r.code != exitFailed || !strings.Contains(r.stderr, "b/0029") {
		t.Fatalf("export with a property not in the header: exit %d, %q; want exit %d naming b/0029", r.code, r.stderr, exitFailed)
	}
	if _, err := tbl.Upsert(ctx, last, table.Replace); err != nil {
		t.Fatal(err)
	}
	wantCode(t, tk(t, cs, args...), 0, "export resumed once the property is gone")
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	rows := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(rows) != 61 || !strings.HasPrefix(rows[60], "b,0029,") {
		t.Errorf("the file has %d rows ending with %q, want a header and 60 entities ending with b/0029", len(rows), rows[len(rows)-1])
	}
}
