package main

import (
	"bytes"
	"context"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tablekit/tablekit/devtools/azurite"
	"github.com/tablekit/tablekit/devtools/faults"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/query"
	"github.com/tablekit/tablekit/table"
)

// verifyCounts reads verify's counts from its stdout.
func verifyCounts(t *testing.T, out string) map[string]int {
	t.Helper()
	got := map[string]int{}
	for _, m := range regexp.MustCompile(`(?m)^(source|target|missing|extra|changed)\s+(?:\S+: )?(\d+)`).FindAllStringSubmatch(out, -1) {
		got[m[1]], _ = strconv.Atoi(m[2])
	}
	if len(got) != 5 {
		t.Fatalf("verify printed %q: want the five counts", out)
	}
	return got
}

// makeDifferences makes one of each difference in a copy of a seed table
// with partitions a, b and c: missing, extra, changed, type changed.
func makeDifferences(t *testing.T, dt *dynTable) {
	t.Helper()
	ctx := testenv.Ctx(t)
	if err := dt.Delete(ctx, "a", "0001", table.AnyETag); err != nil {
		t.Fatal(err)
	}
	for _, e := range []table.Entity{
		{PartitionKey: "c", RowKey: "zz", Properties: map[string]any{"N": int32(1)}},
		{PartitionKey: "a", RowKey: "0002", Properties: map[string]any{"N": int32(99)}},
		{PartitionKey: "b", RowKey: "0003", Properties: map[string]any{"N": int64(3)}},
	} {
		if _, err := dt.Upsert(ctx, e, table.Replace); err != nil {
			t.Fatal(err)
		}
	}
}

// wantDifferences checks that verify r, of tables of total entities each,
// found makeDifferences' and printed them; it returns the counts.
func wantDifferences(t *testing.T, what string, r result, total int) map[string]int {
	t.Helper()
	wantCode(t, r, exitDiffer, what)
	got := verifyCounts(t, r.stdout)
	if got["missing"] != 1 || got["extra"] != 1 || got["changed"] != 2 || got["source"] != total || got["target"] != total {
		t.Errorf("%s: counts %v, want 1 missing, 1 extra, 2 changed of %d", what, got, total)
	}
	for _, want := range []string{
		`missing  "a" "0001"`,
		`changed  "a" "0002"  N: Edm.Int32 "2" -> Edm.Int32 "99"`,
		`type     "b" "0003"  N: Edm.Int32 "3" -> Edm.Int64 "3"`,
		`extra    "c" "zz"`,
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("%s: stdout lacks %q:\n%s", what, want, r.stdout)
		}
	}
	return got
}

func TestE2EVerify(t *testing.T) {
	az := testenv.Azurite(t)
	cs := az.ConnectionString
	ctx := context.Background()
	src := seed(t, az, []string{"a", "b", "c"}, 40)
	st := dynTableOf(t, cs, src)
	edge := table.NewEntity("b", "edge")
	edge.Properties = edgeProps()
	if _, err := st.Upsert(ctx, edge, table.Replace); err != nil {
		t.Fatal(err)
	}
	dt, dst := newDynTable(t, cs)
	wantCode(t, tk(t, cs, "copy", src, dst), exitOK, "copy")
	dir := t.TempDir()
	jsonl, csv := filepath.Join(dir, "src.jsonl"), filepath.Join(dir, "src.csv")
	wantCode(t, tk(t, cs, "export", src, "-o", jsonl, "--parallel", "4"), exitOK, "export jsonl")
	wantCode(t, tk(t, cs, "export", src, "-o", csv), exitOK, "export csv")

	px, err := faults.Start(strings.TrimSuffix(az.Endpoint, "/"+az.Account))
	if err != nil {
		t.Fatal(err)
	}
	defer px.Close()
	other := azurite.ConnectionString(px.Endpoint(az.Account)) // the target through another endpoint

	for _, args := range [][]string{
		{src, dst},
		{src, dst, "--parallel", "1"},
		{src, dst, "--to-connection-string", other, "--parallel", "3"},
		{src, jsonl},
		{src, csv},
		{src, jsonl, "--partition", "b"},
	} {
		r := tk(t, cs, append([]string{"verify"}, args...)...)
		wantCode(t, r, exitOK, fmt.Sprint("verify ", args))
		want := 121
		if len(args) > 2 && args[2] == "--partition" {
			want = 41
		}
		if got := verifyCounts(t, r.stdout); got["source"] != want || got["target"] != want || !strings.Contains(r.stdout, "\nequal\n") {
			t.Errorf("verify %v printed:\n%s", args, r.stdout)
		}
	}

	makeDifferences(t, dt)
	r := tk(t, cs, "verify", src, dst)
	got := wantDifferences(t, "verify after changes", r, 121)
	r = tk(t, cs, "verify", src, dst, "--show", "1")
	if n := strings.Count(r.stdout, `"0`); n != 1 {
		t.Errorf("--show 1 printed %d differences:\n%s", n, r.stdout)
	}

	// The shares of a plan add up to the whole comparison.
	plan := planFile(t, cs, src, 3)
	sum := map[string]int{}
	for i := 1; i <= 3; i++ {
		r := tk(t, cs, "verify", src, dst, "--plan", plan, "--segment", fmt.Sprintf("%d/3", i), "--to-connection-string", other)
		if r.code != exitOK && r.code != exitDiffer {
			wantCode(t, r, exitDiffer, "verify a share")
		}
		for k, v := range verifyCounts(t, r.stdout) {
			sum[k] += v
		}
	}
	if fmt.Sprint(sum) != fmt.Sprint(got) {
		t.Errorf("the shares add up to %v, want %v", sum, got)
	}

	// A complete checkpoint reports again without reading, and exits 7.
	ckpt := filepath.Join(dir, "v.ckpt")
	wantCode(t, tk(t, cs, "verify", src, dst, "--checkpoint", ckpt), exitDiffer, "verify --checkpoint")
	r = tk(t, cs, "verify", src, dst, "--checkpoint", ckpt)
	wantCode(t, r, exitComplete, "verify with a complete checkpoint")
	if !strings.Contains(r.stderr, "already complete") || verifyCounts(t, r.stdout)["missing"] != 1 {
		t.Errorf("a complete checkpoint: stderr %q, stdout %q", r.stderr, r.stdout)
	}

	// Usage errors: nothing read.
	for _, args := range [][]string{
		{src},
		{src, src},
		{src, "no-such-dir/x.jsonl", "--filter", "N eq 1"},
		{src, jsonl, "--to-connection-string", other},
		{src, "bad_name"},
		{src, dst, "--show", "-1"},
	} {
		wantCode(t, tk(t, cs, append([]string{"verify"}, args...)...), exitUsage, fmt.Sprint("verify ", args))
	}
	wantCode(t, tk(t, cs, "verify", src, filepath.Join(dir, "none.jsonl")), exitUsage, "verify against a missing file: nothing sent")
}

// TestE2EVerifyFileRuns sorts a file larger than a run in several runs
// merged from disk; its entities come in reverse order, a key twice.
func TestE2EVerifyFileRuns(t *testing.T) {
	az := testenv.Azurite(t)
	cs := az.ConnectionString
	src := seed(t, az, []string{"a", "b"}, 30)
	tbl := dynTableOf(t, cs, src)
	var lines [][]byte
	w := lineWriter{t: tbl}
	for e, err := range queryAll(tbl) {
		if err != nil {
			t.Fatal(err)
		}
		if e.RowKey == "0007" {
			stale := e
			stale.Properties = map[string]any{"N": int32(-1)}
			b, _ := w.line(stale)
			lines = append(lines, bytes.Clone(b))
		}
		b, _ := w.line(e)
		lines = append(lines, bytes.Clone(b))
	}
	var file []byte
	for i := len(lines) - 1; i >= 0; i-- {
		file = append(file, lines[i]...)
	}
	// Reversed, the stale line of each 0007 comes last, and wins.
	file = bytes.ReplaceAll(file, []byte(`"N":-1`), []byte(`"N":-2`))
	path := filepath.Join(t.TempDir(), "rev.jsonl")
	if err := os.WriteFile(path, file, 0o644); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	setFanIn(t, 3) // 9 runs of up to 7 lines, merged 3 at a time, then into one
	var got []string
	for e, err := range sortedFile(tbl, path, formatJSONL, ',', func(*table.Entity) bool { return true }, runLimits{items: 7, bytes: 1 << 30}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%s/%s=%v", e.PartitionKey, e.RowKey, e.Properties["N"]))
	}
	if len(got) != 60 {
		t.Fatalf("%d entities, want 60: %v", len(got), got)
	}
	for i, g := range got {
		pk := "a"
		if i >= 30 {
			pk = "b"
		}
		n := i % 30
		want := fmt.Sprintf("%s/%04d=%d", pk, n, n)
		if n == 7 {
			want = fmt.Sprintf("%s/%04d=-2", pk, n) // the later line
		}
		if g != want {
			t.Errorf("entity %d = %s, want %s", i, g, want)
		}
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("the sort's runs were left in the temporary directory: %v", left)
	}
}

// TestE2EVerifyInterrupted stops a verify with SIGINT while the target is
// slow; the same command with its checkpoint then reports the whole
// comparison.
func TestE2EVerifyInterrupted(t *testing.T) {
	if testing.Short() {
		t.Skip("a slowed comparison of a few thousand entities")
	}
	az := testenv.Azurite(t)
	cs := az.ConnectionString
	parts := partitionKeys("p%d", 6)
	src := seed(t, az, parts, 600)
	_, dst := newDynTable(t, cs)
	wantCode(t, tk(t, cs, "copy", src, dst), exitOK, "copy")
	dt := dynTableOf(t, cs, dst)
	if err := dt.Delete(context.Background(), "p5", "0599", table.AnyETag); err != nil {
		t.Fatal(err)
	}
	px, err := faults.Start(strings.TrimSuffix(az.Endpoint, "/"+az.Account))
	if err != nil {
		t.Fatal(err)
	}
	defer px.Close()
	px.SetRules(faults.Rule{Match: faults.PathContains(dst), Fault: faults.Latency(400 * time.Millisecond)})
	ckpt := filepath.Join(t.TempDir(), "v.ckpt")
	args := []string{"verify", src, dst, "--to-connection-string", azurite.ConnectionString(px.Endpoint(az.Account)), "--parallel", "1", "--checkpoint", ckpt}
	first := interrupt(t, childEnv(cs), ckpt, args...)
	r := tk(t, cs, args...)
	wantCode(t, r, exitDiffer, "resumed verify")
	if got := verifyCounts(t, r.stdout); got["source"] != 3600 || got["target"] != 3599 || got["missing"] != 1 || !strings.Contains(r.stdout, `"p5" "0599"`) {
		t.Errorf("resumed verify printed:\n%s\n(first run: %s)", r.stdout, first)
	}
}

func queryAll(tbl *dynTable) iter.Seq2[table.Entity, error] {
	return query.New(tbl).All(context.Background())
}
