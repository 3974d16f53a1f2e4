package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tablekit/tablekit/batch"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/table"
)

// seedKeys creates a table holding an entity of each of keys (N numbers
// them) and returns its name.
func seedKeys(t *testing.T, az *testenv.Env, keys [][2]string) string {
	t.Helper()
	ents := make([]seedEntity, len(keys))
	for i, k := range keys {
		ents[i] = seedEntity{k[0], k[1], int32(i)}
	}
	return seedTable(t, az, ents)
}

// shareCounts counts each share of a plan of n.
func shareCounts(t *testing.T, conn, name, plan string, n int, scope ...string) []int {
	t.Helper()
	var counts []int
	for i := 1; i <= n; i++ {
		counts = append(counts, count(t, conn, append([]string{name, "--plan", plan, "--segment", fmt.Sprintf("%d/%d", i, n)}, scope...)...))
	}
	return counts
}

// TestE2EPlanBalance plans four shares of tables whose keys put every
// entity in one share of the key alphabet (p00..p49 with many rows a
// partition, customer numbers with one, reverse ticks as the RowKeys of
// one partition): each share within 50% of a quarter, together the table.
func TestE2EPlanBalance(t *testing.T) {
	az := testenv.Azurite(t)
	cs := az.ConnectionString
	var customers, ticks [][2]string
	for i := range 1200 { // a partition each: Azurite takes a millisecond or two a transaction
		customers = append(customers, [2]string{fmt.Sprintf("customer-%06d", i+1), "profile"})
	}
	for i := range 10000 {
		ticks = append(ticks, [2]string{"device-7", table.ReverseTicks(time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * 3 * time.Second))})
	}
	parts := partitionKeys("p%02d", 50)
	tests := []struct {
		name  string
		table string
		n     int
		scope []string
	}{
		{"p00-p49 of 200 rows", seed(t, az, parts, 200), 10000, nil},
		{"customer numbers", seedKeys(t, az, customers), 1200, nil},
		{"reverse ticks", seedKeys(t, az, ticks), 10000, []string{"--partition", "device-7"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan := filepath.Join(t.TempDir(), "plan.json")
			r := tk(t, cs, append([]string{"plan", tt.table, "--shares", "4", "-o", plan}, tt.scope...)...)
			wantCode(t, r, 0, "plan")
			t.Log(strings.TrimSpace(r.stderr))
			counts := shareCounts(t, cs, tt.table, plan, 4, tt.scope...)
			sum := 0
			for _, c := range counts {
				sum += c
				if c < tt.n/8 || c > tt.n*3/8 {
					t.Errorf("share counts %v: want each within 50%% of %d", counts, tt.n/4)
				}
			}
			if sum != tt.n {
				t.Errorf("shares add up to %d, want %d", sum, tt.n)
			}
		})
	}
}

// manifestJob is what the e2e test reads of a Job of the manifest.
type manifestJob struct {
	name        string
	completions int
	args        []string
}

// readManifest reads deploy/k8s's Jobs without a YAML library (none is a
// dependency): their names, completions and args, written as one-line
// JSON arrays, and it checks the lines every Job must have.
func readManifest(t *testing.T) []manifestJob {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "deploy", "k8s", "indexed-job.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var jobs []manifestJob
	for _, doc := range strings.Split(string(b), "\n---\n") {
		field := func(key string) string {
			m := regexp.MustCompile(`(?m)^\s*` + key + `:\s*(.+)$`).FindStringSubmatch(doc)
			if m == nil {
				t.Fatalf("manifest: a Job without %s:\n%s", key, doc)
			}
			return strings.TrimSpace(m[1])
		}
		for _, want := range []string{"apiVersion: batch/v1", "kind: Job", "completionMode: Indexed", "restartPolicy: Never"} {
			if !strings.Contains(doc, want) {
				t.Errorf("manifest: a Job without %q", want)
			}
		}
		j := manifestJob{name: strings.Fields(field("name"))[0]}
		if j.completions, err = strconv.Atoi(field("completions")); err != nil {
			t.Fatal(err)
		}
		if p := field("parallelism"); p != strconv.Itoa(j.completions) {
			t.Errorf("manifest %s: parallelism %s, completions %d: want the shares at once", j.name, p, j.completions)
		}
		if err := json.Unmarshal([]byte(field("args")), &j.args); err != nil {
			t.Fatalf("manifest %s: args: %v", j.name, err)
		}
		if seg := fmt.Sprintf("env:JOB_COMPLETION_INDEX/%d", j.completions); !strings.Contains(strings.Join(j.args, " "), "--segment "+seg) {
			t.Errorf("manifest %s: args %q, want --segment %s", j.name, j.args, seg)
		}
		jobs = append(jobs, j)
	}
	return jobs
}

// runPods runs the Job's command line as its pods run it, all at once:
// the same arguments in each, $(JOB_COMPLETION_INDEX) expanded as the
// kubelet expands it, JOB_COMPLETION_INDEX in the environment, and the
// manifest's names and paths mapped to the test's. Each pod must exit
// with status want.
func runPods(t *testing.T, conn string, j manifestJob, names map[string]string, dir string, want int) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make([]string, j.completions)
	for i := range j.completions {
		args := make([]string, len(j.args))
		for k, a := range j.args {
			a = strings.ReplaceAll(a, "$(JOB_COMPLETION_INDEX)", strconv.Itoa(i))
			a = strings.Replace(a, "/plan/", dir+"/", 1)
			a = strings.Replace(a, "/data/", dir+"/", 1)
			if n, ok := names[a]; ok {
				a = n
			}
			args[k] = a
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		cmd := exec.CommandContext(ctx, binary(t), args...)
		cmd.Env = append(childEnv(conn), "JOB_COMPLETION_INDEX="+strconv.Itoa(i))
		var errb bytes.Buffer
		cmd.Stderr = &errb
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer cancel()
			err := cmd.Run()
			var ee *exec.ExitError
			switch {
			case errors.As(err, &ee) && ee.ExitCode() == want:
			case err != nil:
				errs[i] = fmt.Sprintf("pod %d: %v, want exit %d\n%s", i, err, want, errb.String())
			case want != 0:
				errs[i] = fmt.Sprintf("pod %d: exit 0, want %d\n%s", i, want, errb.String())
			}
		}()
	}
	wg.Wait()
	for _, e := range errs {
		if e != "" {
			t.Error(e)
		}
	}
}

// TestE2EIndexedJob runs the Kubernetes manifest's export and copy as an
// Indexed Job runs them, its pods at once with their JOB_COMPLETION_INDEX
// and one plan: the exports' files hold the table exactly once, and the
// copy is the table.
func TestE2EIndexedJob(t *testing.T) {
	az := testenv.Azurite(t)
	cs := az.ConnectionString
	parts := partitionKeys("p%02d", 50)
	per := 100
	if testing.Short() {
		per = 40
	}
	src := seed(t, az, parts, per)
	dst := testenv.TableName(t)
	t.Cleanup(func() { dropTable(t, cs, dst) })
	names := map[string]string{"events": src, "eventscopy": dst}
	jobs := readManifest(t)
	if len(jobs) != 2 || jobs[0].args[0] != "export" || jobs[1].args[0] != "copy" {
		t.Fatalf("manifest: want an export Job and a copy Job, got %+v", jobs)
	}
	dir := t.TempDir()
	n := jobs[0].completions
	wantCode(t, tk(t, cs, "plan", src, "--shares", strconv.Itoa(n), "-o", filepath.Join(dir, "events.plan")), 0, "plan")

	runPods(t, cs, jobs[0], names, dir, exitOK)
	union := map[string]int{}
	for i := range n {
		keys := keysOf(t, filepath.Join(dir, fmt.Sprintf("events-%d.jsonl", i)))
		if len(keys) < len(parts)*per/(2*n) {
			t.Errorf("pod %d exported %d entities, want at least half of a share", i, len(keys))
		}
		for k, c := range keys {
			union[k] += c
		}
	}
	wantOnce(t, "the pods' exports", union, len(parts)*per)

	runPods(t, cs, jobs[1], names, dir, exitOK)
	if got := count(t, cs, dst); got != len(parts)*per {
		t.Errorf("the pods' copy holds %d entities, want %d", got, len(parts)*per)
	}
	// A pod started again after it finished finds its checkpoint complete:
	// it writes nothing and says so (exit status 7).
	before := keysOf(t, filepath.Join(dir, "events-0.jsonl"))
	runPods(t, cs, jobs[0], names, dir, exitComplete)
	if got := keysOf(t, filepath.Join(dir, "events-0.jsonl")); !maps.Equal(got, before) {
		t.Errorf("pod 0 run again: its file has %d entities, want the %d it had", len(got), len(before))
	}
}

// TestE2EPlanUsage gives shares and plans that do not fit: each stops the
// command with exit status 2 before any request, and writes nothing.
func TestE2EPlanUsage(t *testing.T) {
	az := testenv.Azurite(t)
	cs := az.ConnectionString
	name := seed(t, az, []string{"a", "b", "c", "d"}, 10)
	other := seed(t, az, []string{"x"}, 1)
	dir := t.TempDir()
	plan4 := planFile(t, cs, name, 4)
	planB := planFile(t, cs, name, 2, "--partition", "b")
	planOther := planFile(t, cs, other, 4)
	out := filepath.Join(dir, "out.jsonl")
	tests := []struct {
		name string
		env  []string
		args []string
		want string // in stderr
	}{
		{"segment without a plan", nil, []string{"export", name, "-o", out, "--segment", "2/4"}, "needs --plan FILE"},
		{"plan without a segment", nil, []string{"export", name, "-o", out, "--plan", plan4}, "--plan needs --segment"},
		{"no such plan", nil, []string{"export", name, "-o", out, "--plan", filepath.Join(dir, "none"), "--segment", "1/4"}, "does not exist"},
		{"another table's plan", nil, []string{"export", name, "-o", out, "--plan", planOther, "--segment", "1/4"}, "is of table"},
		{"other shares", nil, []string{"export", name, "-o", out, "--plan", plan4, "--segment", "1/3"}, "has 4 shares, not 3"},
		{"other scope", nil, []string{"export", name, "-o", out, "--plan", planB, "--segment", "1/2"}, "--partition \"b\""},
		{"index not set", nil, []string{"export", name, "-o", out, "--plan", plan4, "--segment", "env:JOB_COMPLETION_INDEX/4"}, "is not set"},
		{"index too big", []string{"JOB_COMPLETION_INDEX=4"}, []string{"export", name, "-o", out, "--plan", plan4, "--segment", "env:JOB_COMPLETION_INDEX/4"}, "0 to 3"},
		{"key-chars is gone", nil, []string{"export", name, "-o", out, "--key-chars", "hex"}, "not defined"},
		{"no shares", nil, []string{"plan", name, "-o", out}, "--shares 0"},
		{"too many shares", nil, []string{"plan", name, "--shares", "10001", "-o", out}, "want 1 to 10000"},
		{"negative limit", nil, []string{"export", name, "-o", out, "--limit", "-1"}, "--limit -1"},
		{"count's segment", nil, []string{"count", name, "--segment", "3/4"}, "needs --plan FILE"},
		{"copy's segment", nil, []string{"copy", name, "x" + name, "--segment", "3/4"}, "needs --plan FILE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(binary(t), tt.args...)
			cmd.Env = append(childEnv(cs), tt.env...)
			var errb bytes.Buffer
			cmd.Stderr = &errb
			err := cmd.Run()
			ee, _ := err.(*exec.ExitError)
			if ee == nil || ee.ExitCode() != exitUsage || !strings.Contains(errb.String(), tt.want) {
				t.Errorf("got %v: %s; want exit %d saying %q", err, errb.String(), exitUsage, tt.want)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s was written", out)
				os.Remove(out)
			}
		})
	}
	wantCode(t, tk(t, cs, "plan", testenv.TableName(t), "--shares", "2"), exitNotFound, "plan of a missing table")
}

// TestE2EPlanEmptyShares plans more shares than the keys can be cut into
// (two partitions; one partition of more than a page, which leaves no
// bound at all): the shares left empty read nothing, and together the
// shares hold the table once.
func TestE2EPlanEmptyShares(t *testing.T) {
	az := testenv.Azurite(t)
	cs := az.ConnectionString
	for _, tt := range []struct {
		parts []string
		per   int
	}{{[]string{"a", "b"}, 10}, {[]string{"only"}, 1100}} {
		name := seed(t, az, tt.parts, tt.per)
		plan := filepath.Join(t.TempDir(), "plan.json")
		r := tk(t, cs, "plan", name, "--shares", "4", "-o", plan)
		wantCode(t, r, 0, "plan")
		if !strings.Contains(r.stderr, "shares are empty") {
			t.Errorf("plan of %d partitions in 4 shares says %q, want that some are empty", len(tt.parts), r.stderr)
		}
		counts := shareCounts(t, cs, name, plan, 4)
		sum, empty := 0, 0
		for _, c := range counts {
			sum += c
			if c == 0 {
				empty++
			}
		}
		if want := tt.per * len(tt.parts); sum != want || empty < 4-len(tt.parts) {
			t.Errorf("%d partitions in 4 shares: counts %v, want %d in all, %d shares empty", len(tt.parts), counts, want, 4-len(tt.parts))
		}
	}
}

// TestE2EPlanTableChanges writes the table between the plan and the
// shares' runs, and while they run: the shares still hold every entity
// stored before the run exactly once, and those written during the run at
// most once. A writer keeps writing while the three shares are exported
// one after the other, and each share starts only after one of its writes
// landed since the share before ended: the entities of partitions w<i>
// (after every planned bound: the last share's) that landed before the
// last share started must be in it.
func TestE2EPlanTableChanges(t *testing.T) {
	az := testenv.Azurite(t)
	cs := az.ConnectionString
	parts := partitionKeys("k%02d", 30)
	name := seed(t, az, parts, 40)
	plan := planFile(t, cs, name, 3)
	svc, err := table.NewService(cs, nil)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := table.New[seedEntity](svc, name)
	if err != nil {
		t.Fatal(err)
	}
	ctx := testenv.Ctx(t)
	write := func(pks ...string) error {
		var ops []batch.Op[seedEntity]
		for _, pk := range pks {
			for i := range 10 {
				ops = append(ops, batch.Op[seedEntity]{Entity: seedEntity{pk, fmt.Sprintf("%04d", i), int32(i)}})
			}
		}
		_, err := batch.Write(ctx, tbl, ops, nil)
		return err
	}
	// Before the run: partitions before, between and after the planned ones.
	if err := write("a", "k10x", "k200", "zz"); err != nil {
		t.Fatal(err)
	}
	before := len(parts)*40 + 40

	// During the run: more of them, written by a goroutine that reports
	// each write that landed (its number i) and its error, if any, to the
	// test's goroutine.
	var (
		mu     sync.Mutex
		landed []int
	)
	wrote := make(chan struct{}, 1)
	errc := make(chan error, 1)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			if err := write(fmt.Sprintf("k%02dw%d", i%30, i), fmt.Sprintf("w%d", i)); err != nil {
				errc <- fmt.Errorf("write %d during the run: %w", i, err)
				return
			}
			mu.Lock()
			landed = append(landed, i)
			mu.Unlock()
			select {
			case wrote <- struct{}{}:
			default:
			}
		}
	}()
	stopWriter := sync.OnceFunc(func() { close(stop); wg.Wait() })
	t.Cleanup(stopWriter) // also when a check below ends the test
	// nextWrite waits for a write that lands after the call.
	nextWrite := func(after string) {
		t.Helper()
		select {
		case <-wrote: // one that may have landed before
		default:
		}
		select {
		case <-wrote:
		case err := <-errc:
			t.Fatal(err)
		case <-ctx.Done():
			t.Fatalf("no write landed %s: %v", after, ctx.Err())
		}
	}

	union := map[string]int{}
	var beforeLast []int // the writes that landed before the last share started
	for i := 1; i <= 3; i++ {
		if i > 1 {
			nextWrite(fmt.Sprintf("after share %d", i-1))
		}
		if i == 3 {
			mu.Lock()
			beforeLast = slices.Clone(landed)
			mu.Unlock()
		}
		file := filepath.Join(t.TempDir(), "share.jsonl")
		wantCode(t, tk(t, cs, "export", name, "-o", file, "--plan", plan, "--segment", fmt.Sprintf("%d/3", i), "--parallel", "2"), 0, "export share")
		for k, c := range keysOf(t, file) {
			union[k] += c
		}
	}
	stopWriter()
	select {
	case err := <-errc:
		t.Fatal(err)
	default:
	}

	for k, c := range union {
		if c != 1 {
			t.Errorf("%s in %d shares, want 1", k, c)
		}
	}
	for _, pk := range append(parts, "a", "k10x", "k200", "zz") {
		n := 40
		if len(pk) != 3 || pk == "k200" {
			n = 10
		}
		for i := range n {
			if k := fmt.Sprintf("%s/%04d", pk, i); union[k] != 1 {
				t.Errorf("%s, stored before the run, in %d shares, want 1", k, union[k])
			}
		}
	}
	for _, w := range beforeLast {
		for i := range 10 {
			if k := fmt.Sprintf("w%d/%04d", w, i); union[k] != 1 {
				t.Errorf("%s, written during the run before the last share started, in %d shares, want 1", k, union[k])
			}
		}
	}
	if len(union) < before {
		t.Errorf("the shares hold %d entities, fewer than the %d stored before the run", len(union), before)
	}
}

// keyLines reads a JSON Lines file's keys in file order.
func keyLines(t *testing.T, file string) []string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var k struct{ PartitionKey, RowKey string }
		if err := json.Unmarshal([]byte(l), &k); err != nil {
			t.Fatalf("%s: %v: %q", file, err, l)
		}
		keys = append(keys, k.PartitionKey+"/"+k.RowKey)
	}
	return keys
}

// TestE2EExportOrderedLimit exports in key order with --parallel (a merge
// of the segments), the first entities only, and an ordered export killed
// and resumed: in order, every entity once.
func TestE2EExportOrderedLimit(t *testing.T) {
	az := testenv.Azurite(t)
	cs := az.ConnectionString
	parts := partitionKeys("o%02d", 12)
	name := seed(t, az, parts, 150)
	var all []string
	for _, p := range parts {
		for i := range 150 {
			all = append(all, fmt.Sprintf("%s/%04d", p, i))
		}
	}
	dir := t.TempDir()
	tests := []struct {
		name  string
		args  []string
		want  []string // in this order; nil: any order
		count int
	}{
		{"ordered", []string{"--ordered", "--parallel", "4"}, all, len(all)},
		{"ordered limit", []string{"--ordered", "--limit", "25", "--parallel", "4"}, all[:25], 25},
		{"limit", []string{"--limit", "25", "--parallel", "4"}, nil, 25},
		{"ordered share", []string{"--ordered", "--plan", planFile(t, cs, name, 2), "--segment", "2/2"}, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(dir, tt.name+".jsonl")
			wantCode(t, tk(t, cs, append([]string{"export", name, "-o", file}, tt.args...)...), 0, "export")
			got := keyLines(t, file)
			switch {
			case tt.want != nil:
				if strings.Join(got, " ") != strings.Join(tt.want, " ") {
					t.Errorf("got %d keys, from %v; want %d in key order, from %v", len(got), got[:min(3, len(got))], len(tt.want), tt.want[:3])
				}
			case tt.count > 0:
				keys := map[string]int{}
				for _, k := range got {
					keys[k]++
				}
				wantOnce(t, tt.name, keys, tt.count)
			default: // a share: in order, and ending with the table's last key
				for i := 1; i < len(got); i++ {
					if got[i-1] >= got[i] {
						t.Fatalf("key %q after %q", got[i], got[i-1])
					}
				}
				if len(got) == 0 || got[len(got)-1] != all[len(all)-1] {
					t.Errorf("share 2/2 of %d keys ends with %v, want %s", len(got), got[len(got)-1:], all[len(all)-1])
				}
			}
		})
	}
	t.Run("ordered kill and resume", func(t *testing.T) {
		file, ckpt := filepath.Join(dir, "killed.jsonl"), filepath.Join(dir, "killed.ckpt")
		args := []string{"export", name, "-o", file, "--ordered", "--parallel", "3", "--checkpoint", ckpt, "--checkpoint-every", "1ms"}
		killWhenCheckpointed(t, cs, ckpt, args...)
		wantCode(t, tk(t, cs, append(args[:len(args)-2:len(args)-2], "--checkpoint-every", "1s")...), 0, "resumed export")
		if got := keyLines(t, file); strings.Join(got, " ") != strings.Join(all, " ") {
			t.Errorf("resumed ordered export: %d keys, not the table in key order", len(got))
		}
	})
	t.Run("limit to CSV", func(t *testing.T) {
		file := filepath.Join(dir, "head.csv")
		wantCode(t, tk(t, cs, "export", name, "-o", file, "--limit", "7", "--ordered"), 0, "export")
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if lines := strings.Split(strings.TrimSpace(string(b)), "\n"); len(lines) != 8 || !strings.HasPrefix(lines[1], "o00,0000,") {
			t.Errorf("got %d lines, from %q; want a header and the first 7 entities", len(lines), lines[:min(2, len(lines))])
		}
	})
}
