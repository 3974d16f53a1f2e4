package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tablekit/tablekit/batch"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/table"
)

func TestMain(m *testing.M) {
	code := testenv.Run(m)
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

var (
	buildOnce sync.Once
	binDir    string
	binPath   string
	buildErr  error
)

// binary builds the command once per test binary: the end-to-end tests run
// what users run, flags, exit statuses and all.
func binary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "tablekit-e2e")
		if buildErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "tablekit")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

type result struct {
	stdout, stderr string
	code           int
}

// tk runs the binary with only the connection given here in its
// environment (none when conn is "").
func tk(t *testing.T, conn string, args ...string) result {
	t.Helper()
	return tkEnv(t, childEnv(conn), args...)
}

// tkEnv runs the binary with the environment env.
func tkEnv(t *testing.T, env []string, args ...string) result {
	t.Helper()
	return runBinary(t, env, nil, args...)
}

// runBinary runs the binary with the environment env and stdin (nil: none),
// for at most two minutes.
func runBinary(t *testing.T, env []string, stdin io.Reader, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary(t), args...)
	cmd.Env = env
	cmd.Stdin = stdin
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{out.String(), errb.String(), code}
}

func childEnv(conn string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, envConnection+"=") && !strings.HasPrefix(kv, envTargetConnection+"=") {
			env = append(env, kv)
		}
	}
	if conn != "" {
		env = append(env, envConnection+"="+conn)
	}
	return env
}

type seedEntity struct {
	PartitionKey string
	RowKey       string
	N            int32
}

// partitionKeys is format applied to 0 to n-1, keys for seed.
func partitionKeys(format string, n int) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf(format, i)
	}
	return keys
}

// seed creates a table holding perPartition entities in each partition,
// N numbering them within their partition.
func seed(t *testing.T, az *testenv.Env, partitions []string, perPartition int) string {
	t.Helper()
	var ents []seedEntity
	for _, pk := range partitions {
		for i := range perPartition {
			ents = append(ents, seedEntity{pk, fmt.Sprintf("%04d", i), int32(i)})
		}
	}
	return seedTable(t, az, ents)
}

// seedTable creates a table holding ents, deleted when the test ends, and
// returns its name.
func seedTable(t *testing.T, az *testenv.Env, ents []seedEntity) string {
	t.Helper()
	return seedTableOf(t, az, ents)
}

// seedTableOf is seedTable for entities of any type.
func seedTableOf[E any](t *testing.T, az *testenv.Env, ents []E) string {
	t.Helper()
	svc, err := table.NewService(az.ConnectionString, nil)
	if err != nil {
		t.Fatal(err)
	}
	name := testenv.TableName(t)
	tbl, err := table.New[E](svc, name)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := svc.CreateTable(ctx, tbl.Name()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.DeleteTable(context.Background(), tbl.Name()) })
	ops := make([]batch.Op[E], len(ents))
	for i, e := range ents {
		ops[i] = batch.Op[E]{Entity: e}
	}
	if _, err := batch.Write(ctx, tbl, ops, &batch.WriteOptions{InFlight: 8}); err != nil {
		t.Fatal(err)
	}
	return name
}

func wantCode(t *testing.T, r result, code int, what string) {
	t.Helper()
	if r.code != code {
		t.Fatalf("%s: exit %d, want %d\nstdout: %s\nstderr: %s", what, r.code, code, r.stdout, r.stderr)
	}
}

func count(t *testing.T, conn string, args ...string) int {
	t.Helper()
	r := tk(t, conn, append([]string{"count"}, args...)...)
	wantCode(t, r, 0, "count "+strings.Join(args, " "))
	n, err := strconv.Atoi(strings.TrimSpace(r.stdout))
	if err != nil {
		t.Fatalf("count printed %q", r.stdout)
	}
	return n
}

// planFile writes a plan of n shares of table name (scope: --partition,
// --prefix) and returns its path.
func planFile(t *testing.T, conn, name string, n int, scope ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "shares.plan")
	args := append([]string{"plan", name, "--shares", strconv.Itoa(n), "-o", path}, scope...)
	wantCode(t, tk(t, conn, args...), 0, "plan")
	return path
}

func TestE2ETablesCreateDrop(t *testing.T) {
	az := testenv.Azurite(t)
	name := testenv.TableName(t)
	cs := az.ConnectionString
	wantCode(t, tk(t, cs, "create", name), 0, "create")
	wantCode(t, tk(t, cs, "create", name), 0, "create again")
	r := tk(t, cs, "tables", "--prefix", name)
	wantCode(t, r, 0, "tables")
	if got := strings.TrimSpace(r.stdout); got != name {
		t.Errorf("tables --prefix %s printed %q, want the one table", name, got)
	}
	wantCode(t, tk(t, cs, "drop", name), exitUsage, "drop without --yes")
	if r := tk(t, cs, "tables", "--prefix", name); strings.TrimSpace(r.stdout) != name {
		t.Fatalf("drop without --yes dropped the table")
	}
	wantCode(t, tk(t, "", "drop", name, "--yes", "--connection-string", cs), 0, "drop --yes")
	if r := tk(t, cs, "tables", "--prefix", name); strings.TrimSpace(r.stdout) != "" {
		t.Errorf("after drop, tables printed %q", r.stdout)
	}
}

func TestE2EExitStatus(t *testing.T) {
	az := testenv.Azurite(t)
	cs := az.ConnectionString
	tests := []struct {
		name string
		conn string
		args []string
		code int
	}{
		{"no command", cs, nil, exitUsage},
		{"unknown command", cs, []string{"frobnicate"}, exitUsage},
		{"help", cs, []string{"count", "--help"}, exitOK},
		{"no account", "", []string{"tables"}, exitUsage},
		{"bad flag", cs, []string{"count", "t", "--nope"}, exitUsage},
		{"bad segment", cs, []string{"count", "t", "--segment", "5/4"}, exitUsage},
		{"bad table name", cs, []string{"count", "no-dashes"}, exitUsage},
		{"missing table", cs, []string{"count", testenv.TableName(t)}, exitNotFound},
		{"bad connection string", "nonsense", []string{"tables"}, exitUsage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tk(t, tt.conn, tt.args...)
			wantCode(t, r, tt.code, tt.name)
			if strings.Contains(r.stderr, az.Key) {
				t.Errorf("stderr shows the account key")
			}
		})
	}
}

func TestE2ECount(t *testing.T) {
	az := testenv.Azurite(t)
	cs := az.ConnectionString
	parts := []string{"0a", "3f", "Alice", "bob", "zz9", "~x"}
	name := seed(t, az, parts, 50)
	if got := count(t, cs, name); got != 300 {
		t.Errorf("count = %d, want 300", got)
	}
	if got := count(t, cs, name, "--partition", "bob", "--parallel", "2"); got != 50 {
		t.Errorf("count --partition bob = %d, want 50", got)
	}
	if got := count(t, cs, name, "--filter", "N lt 10"); got != 60 {
		t.Errorf("count --filter 'N lt 10' = %d, want 60", got)
	}
	for _, n := range []int{1, 3, 4} {
		for _, extra := range [][]string{nil, {"--partition", "Alice"}, {"--filter", "N ge 25", "--parallel", "1"}} {
			var scope []string
			if len(extra) > 0 && extra[0] == "--partition" {
				scope = extra
			}
			plan := planFile(t, cs, name, n, scope...)
			sum := 0
			for i := 1; i <= n; i++ {
				sum += count(t, cs, append([]string{name, "--plan", plan, "--segment", fmt.Sprintf("%d/%d", i, n)}, extra...)...)
			}
			want := count(t, cs, append([]string{name}, extra...)...)
			if sum != want {
				t.Errorf("segments of %d %v add up to %d, want %d", n, extra, sum, want)
			}
		}
	}
	r := tk(t, cs, "count", name)
	if !strings.Contains(r.stderr, "300 entities") || !strings.Contains(r.stderr, "retries") {
		t.Errorf("summary on stderr is %q", r.stderr)
	}
}

func TestE2EDelete(t *testing.T) {
	az := testenv.Azurite(t)
	cs := az.ConnectionString
	name := seed(t, az, []string{"a", "b", "c"}, 120)
	wantCode(t, tk(t, cs, "delete", name, "--partition", "a"), exitUsage, "delete without --yes")
	wantCode(t, tk(t, cs, "delete", name, "--yes"), exitUsage, "delete without a filter")
	if got := count(t, cs, name); got != 360 {
		t.Fatalf("refused deletes deleted: count %d", got)
	}
	wantCode(t, tk(t, cs, "delete", name, "--partition", "a", "--yes"), 0, "delete --partition")
	if got := count(t, cs, name); got != 240 {
		t.Errorf("after deleting partition a: %d, want 240", got)
	}
	ckpt := filepath.Join(t.TempDir(), "del.ckpt")
	r := tk(t, cs, "delete", name, "--filter", "N lt 100", "--yes", "--checkpoint", ckpt, "--segment", "1/1")
	wantCode(t, r, 0, "delete --filter")
	if !strings.Contains(r.stderr, "200 entities") {
		t.Errorf("summary %q, want 200 entities", r.stderr)
	}
	if got := count(t, cs, name); got != 40 {
		t.Errorf("after deleting N lt 100: %d, want 40", got)
	}
	r = tk(t, cs, "delete", name, "--filter", "N lt 100", "--yes", "--checkpoint", ckpt, "--segment", "1/1")
	wantCode(t, r, exitComplete, "a complete delete again")
	if !strings.Contains(r.stderr, "already complete (200 entities, table "+name+")") {
		t.Errorf("a complete checkpoint was not recognized: %q", r.stderr)
	}
	r = tk(t, cs, "delete", name, "--filter", "N lt 50", "--yes", "--checkpoint", ckpt, "--segment", "1/1")
	wantCode(t, r, exitUsage, "another job's checkpoint")
	if want := `of filter "N lt 100", not "N lt 50"`; !strings.Contains(r.stderr, want) {
		t.Errorf("another job's checkpoint: %q, want it to say %s", r.stderr, want)
	}
}

// TestE2EDeleteInterrupted sends SIGINT during a delete, once its first
// transaction committed: the run must exit 130 with a checkpoint, and the
// same command must then finish the job.
func TestE2EDeleteInterrupted(t *testing.T) {
	az := testenv.Azurite(t)
	cs := az.ConnectionString
	parts := partitionKeys("p%02d", 40)
	name := seed(t, az, parts, 150)
	ckpt := filepath.Join(t.TempDir(), "del.ckpt")
	args := []string{"delete", name, "--filter", "N ge 0", "--yes", "--checkpoint", ckpt, "--parallel", "1"}
	interrupt(t, childEnv(cs), ckpt, args...)
	wantCode(t, tk(t, cs, args...), 0, "resumed delete")
	if got := count(t, cs, name); got != 0 {
		t.Errorf("after the resumed delete: %d entities left, want 0", got)
	}
}

func TestE2ESAS(t *testing.T) {
	az := testenv.Azurite(t)
	cs := az.ConnectionString
	name := seed(t, az, []string{"alice", "bob"}, 3)
	r := tk(t, cs, "sas", name, "--permissions", "r", "--expiry", "10m", "--partition", "alice")
	wantCode(t, r, 0, "sas")
	u := strings.TrimSpace(r.stdout)
	if !strings.Contains(u, "sig=") || strings.Contains(r.stderr, "sig="+strings.SplitN(strings.SplitN(u, "sig=", 2)[1], "&", 2)[0]) {
		t.Errorf("stdout %q should hold the URL and stderr %q only its redacted form", u, r.stderr)
	}
	sasSvc, err := table.NewServiceWithSAS(u, nil)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := table.New[seedEntity](sasSvc, name)
	if err != nil {
		t.Fatal(err)
	}
	if e, err := tbl.Get(context.Background(), "alice", "0001", nil); err != nil || e.N != 1 {
		t.Errorf("read with the SAS: %+v, %v", e, err)
	}
	wantCode(t, tk(t, cs, "sas", name, "--permissions", "x"), exitUsage, "bad permissions")
	sasConn := "TableEndpoint=" + az.Endpoint + ";SharedAccessSignature=" + strings.SplitN(u, "?", 2)[1]
	wantCode(t, tk(t, sasConn, "sas", name), exitUsage, "sas without an account key")
}
