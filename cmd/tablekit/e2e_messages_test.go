package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/tablekit/tablekit/devtools/azurite"
	"github.com/tablekit/tablekit/devtools/faults"
	"github.com/tablekit/tablekit/devtools/testenv"
)

// checkMessage fails when a command's stderr says a prefix or a phrase
// twice, shows a control character or a byte that is not UTF-8, or holds
// the account key.
func checkMessage(t *testing.T, what, stderr, key string) {
	t.Helper()
	for _, l := range strings.Split(strings.TrimSpace(stderr), "\n") {
		if p := testenv.RepeatedPrefix(l); p != "" {
			t.Errorf("%s: %q says %q twice", what, l, p)
		}
	}
	if !utf8.ValidString(stderr) || strings.ContainsFunc(stderr, func(r rune) bool { return unicode.IsControl(r) && r != '\n' && r != '\t' }) {
		t.Errorf("%s: stderr holds bytes that are not printable text: %q", what, stderr)
	}
	if key != "" && strings.Contains(stderr, key) {
		t.Errorf("%s: stderr shows the account key", what)
	}
}

// TestE2ERefusedBeforeSending gives commands what they must refuse before
// any request: exit status 2, one clear message, and nothing sent (the
// proxy in front of Azurite counts every request) or written.
func TestE2ERefusedBeforeSending(t *testing.T) {
	az := testenv.Azurite(t)
	px, err := faults.Start(strings.TrimSuffix(az.Endpoint, "/"+az.Account))
	if err != nil {
		t.Fatal(err)
	}
	defer px.Close()
	pcs := azurite.ConnectionString(px.Endpoint(az.Account))
	name := seed(t, az, []string{"a"}, 3)
	dir := t.TempDir()
	write := func(file string, b []byte) string {
		path := filepath.Join(dir, file)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	line := []byte(`{"PartitionKey":"p","RowKey":"r","S":"x"}` + "\n")
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	zw.Write(line)
	zw.Close()
	hidden := write("hidden.jsonl", zb.Bytes()) // gzip under a name without .gz
	notGzip := write("plain.jsonl.gz", line)
	parquet := write("in.parquet", line)
	missing := filepath.Join(dir, "missing.jsonl")
	outParquet, outNoDir := filepath.Join(dir, "out.parquet"), filepath.Join(dir, "no", "such", "out.jsonl")
	badKey := "AccountName=" + az.Account + ";AccountKey=" + az.Key + ";TableEndpoint=ht tp://x"
	tests := []struct {
		name string
		conn string
		args []string
		want string // in the message
	}{
		{"export to .parquet", pcs, []string{"export", name, "-o", outParquet}, `".parquet" names no format`},
		{"import from .parquet", pcs, []string{"import", name, parquet, "--create"}, "give --format"},
		{"--format xml", pcs, []string{"import", name, parquet, "--format", "xml"}, "want jsonl (or json) or csv"},
		{"gzip not named .gz", pcs, []string{"import", name, hidden}, "is gzip-compressed: name it"},
		{"gzip on stdin", pcs, []string{"import", name, "-"}, "standard input is gzip-compressed"},
		{".gz that is not gzip", pcs, []string{"import", name, notGzip}, "is not gzip-compressed"},
		{"no input file", pcs, []string{"import", name, missing, "--create"}, "no such file"},
		{"verify against no file", pcs, []string{"verify", name, missing}, "no such file"},
		{"output in no directory", pcs, []string{"export", name, "-o", outNoDir}, "no such file"},
		{"rejects in no directory", pcs, []string{"import", name, write("ok.jsonl", line), "--rejects", outNoDir, "--create"}, "no such file"},
		{"short table name", pcs, []string{"put", "ab"}, `"ab": table name must have 3 to 63 characters`},
		{"table name with a dash", pcs, []string{"count", "no-dashes"}, `"no-dashes": table name must contain only letters and digits`},
		{"copy to a bad name", pcs, []string{"copy", name, "x"}, `"x": table name`},
		{"malformed connection string", "nonsense", []string{"tables"}, "$TABLEKIT_CONNECTION_STRING: invalid connection string"},
		{"connection string with a bad endpoint", "", []string{"count", name, "--connection-string", badKey}, "--connection-string: invalid connection string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			px.Reset()
			var r result
			if tt.name == "gzip on stdin" {
				r = runBinary(t, childEnv(tt.conn), bytes.NewReader(zb.Bytes()), tt.args...)
			} else {
				r = tk(t, tt.conn, tt.args...)
			}
			wantCode(t, r, exitUsage, tt.name)
			if !strings.Contains(r.stderr, tt.want) {
				t.Errorf("stderr %q, want it to say %q", r.stderr, tt.want)
			}
			checkMessage(t, tt.name, r.stderr, az.Key)
			if got := px.Counts(); len(got) != 0 {
				t.Errorf("requests sent: %v, want none", got)
			}
		})
	}
	for _, f := range []string{outParquet, outNoDir} {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Errorf("%s: %v, want it never created", f, err)
		}
	}
}

// TestE2EMessagesSayPrefixOnce runs failing commands, refused before a
// request or by the service, and checks each message with
// testenv.RepeatedPrefix: "tablekit NAME: " once, the library's
// "tablekit: " not again after it, no phrase twice.
func TestE2EMessagesSayPrefixOnce(t *testing.T) {
	az := testenv.Azurite(t)
	cs := az.ConnectionString
	name := seed(t, az, []string{"a"}, 2)
	missing := testenv.TableName(t)
	tests := []struct {
		name  string
		stdin string
		args  []string
		code  int
	}{
		{"count a missing table", "", []string{"count", missing}, exitNotFound},
		{"get a missing entity", "", []string{"get", name, "a", "nope"}, exitNotFound},
		{"get from a missing table", "", []string{"get", missing, "a", "0000"}, exitNotFound},
		{"put a bad key", `{"PartitionKey":"a/b","RowKey":"r"}`, []string{"put", name}, exitUsage},
		{"put a short name", "", []string{"put", "ab"}, exitUsage},
		{"rm a missing entity", "", []string{"rm", name, "a", "nope"}, exitNotFound},
		{"export a missing table", "", []string{"export", missing}, exitNotFound},
		{"drop without --yes", "", []string{"drop", name}, exitUsage},
		{"bad flag", "", []string{"count", name, "--nope"}, exitUsage},
		{"import a bad line", "{\"PartitionKey\":\"a\",\"RowKey\":\"x\"}\n{\"PartitionKey\":\"a/b\",\"RowKey\":\"r\"}\n\x00\x01\x02\n", []string{"import", name, "-"}, exitFailed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tkIn(t, cs, tt.stdin, tt.args...)
			wantCode(t, r, tt.code, tt.name)
			if strings.TrimSpace(r.stderr) == "" {
				t.Fatalf("no message on stderr")
			}
			checkMessage(t, tt.name, r.stderr, az.Key)
		})
	}
}

// TestE2ECSVRejectsKeepInput imports a CSV file with rows that cannot be
// stored: each reject in --rejects holds its row as the file has it, so
// the header and the fixed rows import again.
func TestE2ECSVRejectsKeepInput(t *testing.T) {
	az := testenv.Azurite(t)
	cs := az.ConnectionString
	dst, dname := newDynTable(t, cs)
	header := "PartitionKey,RowKey,N,N@type,Note,Note@type"
	bad := map[int]string{
		3: "p,2,many,Int32,x,String",                       // not an Int32
		4: "p,3,1,Int33,x,String",                          // no such type
		5: "p/q,4,1,Int32,\"two\r\nlines\",String",         // a key the service refuses, a row of two lines
		7: "p,5,1,Int32,\"an \"\"odd\"\" quote\" x,String", // a quote in the middle of a field
	}
	in := header + "\r\n" + "p,1,1,Int32,fine,String\r\n" + bad[3] + "\r\n" + bad[4] + "\r\n" + bad[5] + "\r\n" + bad[7] + "\r\n"
	dir := t.TempDir()
	file := filepath.Join(dir, "in.csv")
	if err := os.WriteFile(file, []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	rejects := filepath.Join(dir, "rejects.jsonl")
	r := tk(t, cs, "import", dname, file, "--rejects", rejects)
	wantCode(t, r, exitFailed, "import with rejects")
	checkMessage(t, "import with rejects", r.stderr, az.Key)
	b, err := os.ReadFile(rejects)
	if err != nil {
		t.Fatal(err)
	}
	got := map[int]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var rj struct {
			Line   int
			Reason string
			Input  *string
		}
		if err := json.Unmarshal([]byte(l), &rj); err != nil {
			t.Fatalf("rejects line %q: %v", l, err)
		}
		if rj.Input == nil {
			t.Errorf("reject %q has no input", l)
			continue
		}
		got[rj.Line] = *rj.Input
	}
	if len(got) != len(bad) {
		t.Errorf("rejects at lines %v, want %d of them", got, len(bad))
	}
	for line, want := range bad {
		if got[line] != want {
			t.Errorf("reject of line %d: input %q, want %q", line, got[line], want)
		}
	}
	// Fixed, the rejected rows import under the file's header.
	fixed := strings.NewReplacer("many", "2", "Int33", "Int32", "p/q", "p", `"an ""odd"" quote" x`, `"an ""odd"" quote x"`)
	again := header + "\n"
	for _, line := range []int{3, 4, 5, 7} {
		again += fixed.Replace(got[line]) + "\n"
	}
	fixedFile := filepath.Join(dir, "fixed.csv")
	if err := os.WriteFile(fixedFile, []byte(again), 0o644); err != nil {
		t.Fatal(err)
	}
	wantCode(t, tk(t, cs, "import", dname, fixedFile), exitOK, "import of the fixed rejects")
	if got := readTable(t, dst); len(got) != 5 || got["p/4"].Properties["Note"] != "two\r\nlines" {
		t.Errorf("after the fixed rows: %d entities, p/4's Note %q; want 5, \"two\\r\\nlines\"", len(got), got["p/4"].Properties["Note"])
	}
}

// TestE2EFailedExportLeavesNoFile exports a missing table: the output,
// opened before the first request so that a bad -o is refused with nothing
// sent, is removed again when the run created it and wrote nothing.
func TestE2EFailedExportLeavesNoFile(t *testing.T) {
	az := testenv.Azurite(t)
	cs := az.ConnectionString
	for _, file := range []string{"out.jsonl", "out.csv.gz"} {
		path := filepath.Join(t.TempDir(), file)
		wantCode(t, tk(t, cs, "export", testenv.TableName(t), "-o", path), exitNotFound, "export of a missing table")
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Errorf("%s after a failed export: %v, want no file", file, err)
		}
	}
}
