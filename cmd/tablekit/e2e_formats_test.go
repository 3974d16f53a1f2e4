package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/table"
)

// timestampRE matches a Timestamp as the service writes it.
var timestampRE = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z`)

// gunzip reads a gzip file whole (every member), failing the test when it
// is not gzip.
func gunzip(t *testing.T, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v, want a gzip file", path, err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return b
}

// typedTable creates a table holding entities of several EDM types and
// returns them by "pk/rk".
func typedTable(t *testing.T, cs string) (string, map[string]table.Entity) {
	t.Helper()
	src, name := newDynTable(t, cs)
	want := map[string]table.Entity{}
	for i, s := range []string{"plain", "comma, \"quote\"", "line\r\nbreak"} {
		e := table.NewEntity("p", string(rune('a'+i)))
		e.Properties["S"] = s
		e.Properties["N"] = int64(i) << 40
		e.Properties["D"] = 1.0
		if _, err := src.Upsert(context.Background(), e, table.Replace); err != nil {
			t.Fatal(err)
		}
		want[e.PartitionKey+"/"+e.RowKey] = e
	}
	return name, want
}

// TestE2EGzip exports to .jsonl.gz and .csv.gz, imports the files back and
// verifies the table against them: a name ending in .gz is written and
// read through gzip, the format taken from the extension before it.
func TestE2EGzip(t *testing.T) {
	az := testenv.Azurite(t)
	cs := az.ConnectionString
	name, want := typedTable(t, cs)
	for _, tt := range []struct{ file, plain string }{{"out.jsonl.gz", "out.jsonl"}, {"out.csv.gz", "out.csv"}, {"out.tsv.gz", "out.tsv"}} {
		t.Run(tt.file, func(t *testing.T) {
			dir := t.TempDir()
			file, plain := filepath.Join(dir, tt.file), filepath.Join(dir, tt.plain)
			wantCode(t, tk(t, cs, "export", name, "-o", file, "--ordered"), exitOK, "export to "+tt.file)
			wantCode(t, tk(t, cs, "export", name, "-o", plain, "--ordered"), exitOK, "export to "+tt.plain)
			raw, err := os.ReadFile(plain)
			if err != nil {
				t.Fatal(err)
			}
			if got := gunzip(t, file); !bytes.Equal(stripTimestamps(got), stripTimestamps(raw)) {
				t.Errorf("gunzipped %s:\n%s\nwant what %s holds:\n%s", tt.file, got, tt.plain, raw)
			}
			dst, dname := newDynTable(t, cs)
			wantCode(t, tk(t, cs, "import", dname, file), exitOK, "import from "+tt.file)
			checkSame(t, readTable(t, dst), want)
			wantCode(t, tk(t, cs, "verify", name, file), exitOK, "verify against "+tt.file)
		})
	}
}

// TestE2EGzipCutShort imports a .jsonl.gz cut in the middle: the run
// fails (exit 1) with a message naming the file, never taking the part it
// read for the whole.
func TestE2EGzipCutShort(t *testing.T) {
	az := testenv.Azurite(t)
	cs := az.ConnectionString
	var lines bytes.Buffer
	for i := range 2000 {
		lines.WriteString(`{"PartitionKey":"p","RowKey":"` + strconv.Itoa(100000+i) + `","S":"` + strings.Repeat("x", i%50) + "\"}\n")
	}
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	zw.Write(lines.Bytes())
	zw.Close()
	file := filepath.Join(t.TempDir(), "cut.jsonl.gz")
	if err := os.WriteFile(file, zb.Bytes()[:zb.Len()/2], 0o644); err != nil {
		t.Fatal(err)
	}
	_, dname := newDynTable(t, cs)
	r := tk(t, cs, "import", dname, file)
	wantCode(t, r, exitFailed, "import of a cut gzip file")
	if !strings.Contains(r.stderr, file+": unexpected EOF") {
		t.Errorf("stderr %q, want it to name the file and say it ends early", r.stderr)
	}
	checkMessage(t, "import of a cut gzip file", r.stderr, az.Key)
}

// stripTimestamps blanks the service's timestamps, which two exports of
// one table share, so only the layout of the bytes is compared.
func stripTimestamps(b []byte) []byte {
	return timestampRE.ReplaceAll(b, []byte("T"))
}

// TestE2EGzipKillAndResume kills an export to .jsonl.gz once it saved a
// checkpoint and runs it again: the file is whole gzip, each entity once,
// since every save ends a gzip member and a resumed run cuts the file
// there.
func TestE2EGzipKillAndResume(t *testing.T) {
	az := testenv.Azurite(t)
	cs := az.ConnectionString
	np, per := bigSize(t)
	name := seed(t, az, partitionKeys("p%03d", np), per)
	dir := t.TempDir()
	file, ckpt := filepath.Join(dir, "all.jsonl.gz"), filepath.Join(dir, "exp.ckpt")
	args := []string{"export", name, "-o", file, "--checkpoint", ckpt, "--checkpoint-every", "1ms", "--parallel", "1"}
	killWhenCheckpointed(t, cs, ckpt, args...)
	wantCode(t, tk(t, cs, append(slices.Clip(args), "--checkpoint-every", "1s")...), exitOK, "resumed export")
	plain := filepath.Join(dir, "all.jsonl")
	if err := os.WriteFile(plain, gunzip(t, file), 0o644); err != nil {
		t.Fatal(err)
	}
	wantOnce(t, "export to .jsonl.gz", keysOf(t, plain), np*per)
}

// TestE2EDevNull exports to /dev/null, which can be neither truncated nor
// sought, with and without a checkpoint.
func TestE2EDevNull(t *testing.T) {
	if _, err := os.Stat(os.DevNull); err != nil || os.DevNull != "/dev/null" {
		t.Skipf("no /dev/null here (%v)", err)
	}
	az := testenv.Azurite(t)
	cs := az.ConnectionString
	name := seed(t, az, []string{"a", "b"}, 10)
	for _, extra := range [][]string{nil, {"--checkpoint", filepath.Join(t.TempDir(), "null.ckpt")}} {
		r := tk(t, cs, append([]string{"export", name, "-o", os.DevNull}, extra...)...)
		wantCode(t, r, exitOK, "export -o /dev/null "+strings.Join(extra, " "))
		if !strings.Contains(r.stderr, "20 entities") {
			t.Errorf("export -o /dev/null %v: summary %q, want 20 entities", extra, r.stderr)
		}
	}
}

// TestE2ESelectTimestamp checks what --select's help says, in every
// format of export and query: the keys and Timestamp always come.
func TestE2ESelectTimestamp(t *testing.T) {
	az := testenv.Azurite(t)
	cs := az.ConnectionString
	name, _ := typedTable(t, cs)
	checkJSONL := func(t *testing.T, out string) {
		t.Helper()
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != 3 {
			t.Fatalf("got %d lines, want 3:\n%s", len(lines), out)
		}
		for _, l := range lines {
			var m map[string]any
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Fatalf("%v: %q", err, l)
			}
			for _, k := range []string{"PartitionKey", "RowKey", "Timestamp", "S"} {
				if s, _ := m[k].(string); s == "" {
					t.Errorf("line %q: %s is %v, want it there", l, k, m[k])
				}
			}
			if _, ok := m["N"]; ok {
				t.Errorf("line %q holds N, which --select S leaves out", l)
			}
		}
	}
	checkColumns := func(t *testing.T, out, sep string, header []string) {
		t.Helper()
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if got := strings.Fields(strings.ReplaceAll(lines[0], sep, " ")); !slices.Equal(got, header) {
			t.Errorf("header %q, want %q", got, header)
		}
		ts := timestampRE.FindAllString(out, -1)
		if len(ts) != 3 {
			t.Errorf("%d timestamps, want one per entity (3):\n%s", len(ts), out)
		}
	}
	tests := []struct {
		name  string
		args  []string
		check func(*testing.T, string)
	}{
		{"export jsonl", []string{"export", name, "--select", "S"}, checkJSONL},
		{"query jsonl", []string{"query", name, "--select", "S,Timestamp"}, checkJSONL},
		{"export csv", []string{"export", name, "--select", "RowKey,S", "--format", "csv"}, func(t *testing.T, out string) {
			checkColumns(t, out, ",", []string{"PartitionKey", "RowKey", "Timestamp", "S", "S@type"})
		}},
		{"query csv", []string{"query", name, "--select", "S", "--format", "csv", "--filter", "RowKey eq 'a'"}, nil},
		{"query table", []string{"query", name, "--select", "N", "--format", "table"}, func(t *testing.T, out string) {
			checkColumns(t, out, "  ", []string{"PartitionKey", "RowKey", "Timestamp", "N"})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tk(t, cs, tt.args...)
			wantCode(t, r, exitOK, tt.name)
			if tt.check != nil {
				tt.check(t, r.stdout)
				return
			}
			if n := len(timestampRE.FindAllString(r.stdout, -1)); n != 1 {
				t.Errorf("%d timestamps, want 1:\n%s", n, r.stdout)
			}
		})
	}
}

// TestE2ESegmentSummariesShowBytes exports each share of a plan, and
// imports a file: every summary says the bytes, not only a run that saved
// a checkpoint on the way.
func TestE2ESegmentSummariesShowBytes(t *testing.T) {
	az := testenv.Azurite(t)
	cs := az.ConnectionString
	name := seed(t, az, partitionKeys("p%02d", 8), 5)
	plan := planFile(t, cs, name, 4)
	dir := t.TempDir()
	for i := 1; i <= 4; i++ {
		file := filepath.Join(dir, "share"+string(rune('0'+i))+".jsonl")
		r := tk(t, cs, "export", name, "-o", file, "--plan", plan, "--segment", string(rune('0'+i))+"/4")
		wantCode(t, r, exitOK, "export share")
		fi, err := os.Stat(file)
		if err != nil {
			t.Fatal(err)
		}
		if want := ", " + strconv.FormatInt(fi.Size(), 10) + " bytes"; !strings.Contains(r.stderr, want) {
			t.Errorf("share %d/4: summary %q, want %q (the file's size)", i, r.stderr, want)
		}
		_, dname := newDynTable(t, cs)
		r = tk(t, cs, "import", dname, file)
		wantCode(t, r, exitOK, "import share")
		if want := ", " + strconv.FormatInt(fi.Size(), 10) + " bytes"; !strings.Contains(r.stderr, want) {
			t.Errorf("import of share %d/4: summary %q, want %q (the file's size)", i, r.stderr, want)
		}
	}
}
