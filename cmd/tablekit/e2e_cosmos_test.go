package main

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/devtools/cosmos"
	"github.com/tablekit/tablekit/devtools/faults"
	"github.com/tablekit/tablekit/devtools/testenv"
)

// cosmosRun is the command pointed at a Cosmos DB stand-in in front of the
// test emulator: the connection string of its account and the environment
// (the stand-in's proxy and certificate) with which the binary reaches it.
type cosmosRun struct {
	az   *testenv.Env
	cs   *cosmos.Server
	conn string
	env  []string
}

func newCosmosRun(t *testing.T, o *cosmos.Options) cosmosRun {
	t.Helper()
	az := testenv.Azurite(t)
	cs := az.Cosmos(t, o)
	conn := cs.ConnectionString(az.Key)
	return cosmosRun{az: az, cs: cs, conn: conn, env: append(childEnv(conn), az.CosmosProxy(t, cs)...)}
}

func (c cosmosRun) tk(t *testing.T, args ...string) result {
	t.Helper()
	return tkEnv(t, c.env, args...)
}

// interrupted runs the command and stops it with SIGINT (Ctrl-C) at its
// first step: it must stop (exit 130) with a checkpoint.
func (c cosmosRun) interrupted(t *testing.T, ckpt string, args ...string) {
	t.Helper()
	interrupt(t, c.env, ckpt, args...)
}

// keysIn reads a table's keys through the emulator itself.
func (c cosmosRun) keysIn(t *testing.T, name string) map[string]int {
	t.Helper()
	keys := map[string]int{}
	for k := range readTable(t, dynTableOf(t, c.az.ConnectionString, name)) {
		keys[k]++
	}
	return keys
}

// TestE2ECosmosKillAndResume kills each scanning command (SIGKILL) once it
// saved a checkpoint, while it reads a Cosmos DB table whose results come
// in no key order, and runs it again: the job finishes with every entity
// exactly once. Export, count and copy resume through positions that count
// the entities of a page; delete keeps none and scans again.
func TestE2ECosmosKillAndResume(t *testing.T) {
	c := newCosmosRun(t, nil)
	parts := []string{"p0", "p1", "p2", "p3"}
	per := 40
	total := len(parts) * per
	name := seed(t, c.az, parts, per)
	dir := t.TempDir()
	fast := []string{"--checkpoint-every", "1ms", "--parallel", "2"}
	resume := func(args []string) []string { return append(slices.Clip(args), "--checkpoint-every", "1s") }

	t.Run("export", func(t *testing.T) {
		file, ckpt := filepath.Join(dir, "all.jsonl"), filepath.Join(dir, "exp.ckpt")
		args := append([]string{"export", name, "-o", file, "--checkpoint", ckpt}, fast...)
		killWhenCheckpointedEnv(t, c.env, ckpt, args...)
		wantCode(t, c.tk(t, resume(args)...), 0, "resumed export")
		wantOnce(t, "export", keysOf(t, file), total)
	})
	// count and delete save on Ctrl-C: interrupt them at their first step.
	t.Run("count", func(t *testing.T) {
		ckpt := filepath.Join(dir, "count.ckpt")
		args := []string{"count", name, "--checkpoint", ckpt, "--parallel", "2"}
		c.interrupted(t, ckpt, args...)
		r := c.tk(t, args...)
		wantCode(t, r, 0, "resumed count")
		if got := strings.TrimSpace(r.stdout); got != fmt.Sprint(total) {
			t.Errorf("count: %s, want %d", got, total)
		}
	})
	t.Run("copy", func(t *testing.T) {
		dname := testenv.TableName(t)
		t.Cleanup(func() { dropTable(t, c.az.ConnectionString, dname) })
		ckpt := filepath.Join(dir, "copy.ckpt")
		args := append([]string{"copy", name, dname, "--checkpoint", ckpt}, fast...)
		killWhenCheckpointedEnv(t, c.env, ckpt, args...)
		wantCode(t, c.tk(t, resume(args)...), 0, "resumed copy")
		wantOnce(t, "copy", c.keysIn(t, dname), total)

		// verify sorts each side; interrupted, it resumes after the last
		// key it compared, each counted once.
		vckpt := filepath.Join(dir, "verify.ckpt")
		vargs := []string{"verify", name, dname, "--checkpoint", vckpt, "--parallel", "2"}
		c.interrupted(t, vckpt, vargs...)
		r := c.tk(t, vargs...)
		wantCode(t, r, 0, "resumed verify")
		if got := verifyCounts(t, r.stdout); got["source"] != total || got["target"] != total {
			t.Errorf("resumed verify printed:\n%s", r.stdout)
		}
	})
	t.Run("delete", func(t *testing.T) {
		ckpt := filepath.Join(dir, "delete.ckpt")
		args := []string{"delete", name, "--prefix", "p", "--yes", "--checkpoint", ckpt, "--parallel", "2"}
		c.interrupted(t, ckpt, args...)
		wantCode(t, c.tk(t, args...), 0, "resumed delete")
		if left := c.keysIn(t, name); len(left) != 0 {
			t.Errorf("%d entities left after the delete", len(left))
		}
	})
}

// TestE2ECosmosChangingOrder: when the service orders a page differently
// every time it is read, a resumed export either finishes with every
// entity once or stops, says why and that the checkpoint cannot be
// resumed; it never writes a wrong file and calls it done.
func TestE2ECosmosChangingOrder(t *testing.T) {
	c := newCosmosRun(t, &cosmos.Options{Order: cosmos.Changing, Seed: 11})
	const total = 120
	name := seed(t, c.az, []string{"a", "b", "c"}, total/3)
	refused := 0
	for i := range 3 {
		dir := t.TempDir()
		file, ckpt := filepath.Join(dir, "all.jsonl"), filepath.Join(dir, "exp.ckpt")
		args := []string{"export", name, "-o", file, "--checkpoint", ckpt, "--checkpoint-every", "1ms", "--parallel", "1"}
		killWhenCheckpointedEnv(t, c.env, ckpt, args...)
		r := c.tk(t, args...)
		switch r.code {
		case 0:
			wantOnce(t, fmt.Sprintf("run %d", i), keysOf(t, file), total)
		case exitFailed:
			if !strings.Contains(r.stderr, strings.TrimPrefix(tablekit.ErrPositionLost.Error(), "tablekit: ")) || !strings.Contains(r.stderr, "delete the file to start again") {
				t.Errorf("run %d: the refusal does not say why and what to do:\n%s", i, r.stderr)
			}
			refused++
			if err := os.Remove(ckpt); err != nil {
				t.Fatal(err)
			}
			wantCode(t, c.tk(t, args...), 0, "export again without the checkpoint")
			wantOnce(t, fmt.Sprintf("run %d, started again", i), keysOf(t, file), total)
		default:
			wantCode(t, r, 0, "resumed export")
		}
	}
	t.Logf("%d of 3 resumed exports refused, the others exact", refused)
}

// TestE2ECosmosThrottled: the command's summary says how many of its
// retries followed throttling (Cosmos DB's 429, with and without
// x-ms-retry-after-ms), and the import is whole.
func TestE2ECosmosThrottled(t *testing.T) {
	c := newCosmosRun(t, nil)
	dname := testenv.TableName(t)
	t.Cleanup(func() { dropTable(t, c.az.ConnectionString, dname) })
	var lines []string
	for i := range 250 {
		lines = append(lines, fmt.Sprintf(`{"PartitionKey":"p%d","RowKey":"%03d","N":%d}`, i%2, i, i))
	}
	in := filepath.Join(t.TempDir(), "in.jsonl")
	if err := os.WriteFile(in, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	batches := faults.And(faults.Method(http.MethodPost), faults.PathContains("$batch"))
	c.cs.SetThrottle(
		cosmos.Throttle{Match: batches, Times: 2, RetryAfter: 20e6},
		cosmos.Throttle{Match: batches, Times: 1},
	)
	r := c.tk(t, "import", dname, in, "--create")
	wantCode(t, r, 0, "import through 429s")
	if !strings.Contains(r.stderr, "3 retries (3 throttled)") {
		t.Errorf("the summary does not count the throttling:\n%s", r.stderr)
	}
	if got := c.keysIn(t, dname); len(got) != len(lines) {
		t.Errorf("imported %d entities, want %d", len(got), len(lines))
	}
}

// TestE2ECosmosVerify: verify sorts what a Cosmos DB table returns in no
// key order and merges it by key: Cosmos DB against Cosmos DB, against
// the same table read straight from the emulator (Table Storage's order),
// and against a file, equal and then with each kind of difference.
func TestE2ECosmosVerify(t *testing.T) {
	c := newCosmosRun(t, nil)
	direct := c.az.ConnectionString
	name := seed(t, c.az, []string{"a", "b", "c"}, 40)
	dname := testenv.TableName(t)
	t.Cleanup(func() { dropTable(t, direct, dname) })
	wantCode(t, c.tk(t, "copy", name, dname), exitOK, "copy on Cosmos DB")
	file := filepath.Join(t.TempDir(), "all.jsonl")
	wantCode(t, c.tk(t, "export", name, "-o", file), exitOK, "export from Cosmos DB")
	for _, args := range [][]string{
		{name, dname},
		{name, dname, "--parallel", "1"},
		{name, name, "--to-connection-string", direct},
		{name, name, "--connection-string", direct, "--to-connection-string", c.conn},
		{name, file},
		{name, file, "--partition", "b"},
	} {
		r := c.tk(t, append([]string{"verify"}, args...)...)
		wantCode(t, r, exitOK, fmt.Sprint("verify ", args))
		want := 120
		if slices.Contains(args, "--partition") {
			want = 40
		}
		if got := verifyCounts(t, r.stdout); got["source"] != want || got["target"] != want || !strings.Contains(r.stdout, "\nequal\n") {
			t.Errorf("verify %v printed:\n%s", args, r.stdout)
		}
	}

	makeDifferences(t, dynTableOf(t, direct, dname))
	for _, args := range [][]string{
		{name, dname},
		{name, dname, "--connection-string", direct, "--to-connection-string", c.conn},
	} {
		wantDifferences(t, fmt.Sprint("verify after changes ", args), c.tk(t, append([]string{"verify"}, args...)...), 120)
	}
}
