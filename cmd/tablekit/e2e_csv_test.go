package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/table"
)

// lineEndings are strings whose every byte a CSV round trip must keep.
var lineEndings = map[string]string{
	"CRLF":     "first\r\nsecond",
	"CR":       "first\rsecond",
	"LF":       "first\nsecond",
	"Mixed":    "\r\n\r\n\n\r",
	"OnlyCR":   "\r",
	"EndsCRLF": "last\r\n",
	"Padded":   "  spaces and\ttab ",
	"Delims":   "a,b;c\td \"q\"",
}

// TestE2ECSVKeepsBytes exports strings holding CR LF, lone CRs and LFs to
// CSV and TSV and imports them back: every byte survives, through the file
// too.
func TestE2ECSVKeepsBytes(t *testing.T) {
	az := testenv.Azurite(t)
	cs := az.ConnectionString
	src, name := newDynTable(t, cs)
	e := table.NewEntity("p", "r")
	for k, v := range lineEndings {
		e.Properties[k] = v
	}
	if _, err := src.Upsert(context.Background(), e, table.Replace); err != nil {
		t.Fatal(err)
	}
	want := map[string]table.Entity{"p/r": e}
	for _, out := range []string{"out.csv", "out.tsv"} { // the format and delimiter from the extension
		t.Run(out, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), out)
			wantCode(t, tk(t, cs, "export", name, "-o", file), 0, "export")
			b, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if head, delim := strings.SplitN(string(b), "\n", 2)[0], map[bool]string{true: "\t", false: ","}[out == "out.tsv"]; !strings.HasPrefix(head, "PartitionKey"+delim+"RowKey"+delim) {
				t.Errorf("header %q, want one delimited by %q", head, delim)
			}
			for k, v := range lineEndings {
				if quoted := `"` + strings.ReplaceAll(v, `"`, `""`) + `"`; !strings.Contains(string(b), quoted) {
					t.Errorf("the file does not hold %s quoted byte for byte, %q:\n%q", k, quoted, b)
				}
			}
			dst, dname := newDynTable(t, cs)
			wantCode(t, tk(t, cs, "import", dname, file), 0, "import")
			checkSame(t, readTable(t, dst), want)
		})
	}
}

// TestE2ECSVFromWindows imports what Excel writes: CR LF after every
// record, CR LF inside quoted fields, a BOM, TRUE and FALSE.
func TestE2ECSVFromWindows(t *testing.T) {
	az := testenv.Azurite(t)
	cs := az.ConnectionString
	dst, dname := newDynTable(t, cs)
	in := "\ufeffPartitionKey,RowKey,Note,Note@type,Ok,Ok@type\r\n" +
		"p,1,\"line one\r\nline two\",String,TRUE,Boolean\r\n" +
		"p,2,\"a lone \r and \n\",String,FALSE,\r\n"
	file := filepath.Join(t.TempDir(), "excel.csv")
	if err := os.WriteFile(file, []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	wantCode(t, tk(t, cs, "import", dname, file), 0, "import")
	checkSame(t, readTable(t, dst), map[string]table.Entity{
		"p/1": {Properties: map[string]any{"Note": "line one\r\nline two", "Ok": true}},
		"p/2": {Properties: map[string]any{"Note": "a lone \r and \n", "Ok": false}},
	})
}

// TestE2EImportFormat picks the format from the file's extension, and stops
// before creating the table or writing anything when the first line is not
// in the format chosen: one message and exit status 2, instead of a reject
// per line.
func TestE2EImportFormat(t *testing.T) {
	az := testenv.Azurite(t)
	cs := az.ConnectionString
	jsonl := `{"PartitionKey":"p","RowKey":"r","A":"x"}` + "\n"
	csv := "PartitionKey,RowKey,A\np,r,x\n"
	tests := []struct {
		file, content string
		hint          string // "": imported
	}{
		{"in.csv", csv, ""},
		{"in.tsv", "PartitionKey\tRowKey\tA\np\tr\tx\n", ""},
		{"in.json", jsonl, ""},
		{"in.jsonl", jsonl, ""},
		{"in.jsonl", csv + strings.Repeat("p,r,x\n", 500), "--format csv"},
		{"in.csv", jsonl + strings.Repeat(jsonl, 500), "--format jsonl"},
		{"in.json", `[{"PartitionKey":"p","RowKey":"r"}]`, "one entity per line"},
		{"in.tsv", csv, "--delimiter"},
	}
	for _, tt := range tests {
		t.Run(tt.file+" "+map[bool]string{true: "ok", false: "wrong"}[tt.hint == ""], func(t *testing.T) {
			file := filepath.Join(t.TempDir(), tt.file)
			if err := os.WriteFile(file, []byte(tt.content), 0o644); err != nil {
				t.Fatal(err)
			}
			name := testenv.TableName(t)
			tbl := dynTableOf(t, cs, name)
			t.Cleanup(func() { dropTable(t, cs, name) })
			rej := filepath.Join(t.TempDir(), "rej.jsonl")
			r := tk(t, cs, "import", name, file, "--create", "--rejects", rej)
			if tt.hint == "" {
				wantCode(t, r, exitOK, "import")
				checkSame(t, readTable(t, tbl), map[string]table.Entity{"p/r": {Properties: map[string]any{"A": "x"}}})
				return
			}
			wantCode(t, r, exitUsage, "import of the wrong format")
			if lines := strings.Split(strings.TrimSpace(r.stderr), "\n"); len(lines) != 2 || !strings.Contains(lines[0], tt.hint) {
				t.Errorf("stderr, want one message saying %q (and the usage hint):\n%s", tt.hint, r.stderr)
			}
			if got := tk(t, cs, "tables", "--prefix", name); strings.TrimSpace(got.stdout) != "" {
				t.Errorf("the table was created")
			}
			if _, err := os.Stat(rej); err == nil {
				t.Errorf("the rejects file was created")
			}
		})
	}
}

// TestE2ECSVExportFirstPassResumes kills a CSV export during its first
// pass (the one that collects the columns) and runs it again: the second
// run goes on with the first pass where it stopped, keeps the columns seen
// before the kill, and the file holds every entity once under every
// column.
func TestE2ECSVExportFirstPassResumes(t *testing.T) {
	az := testenv.Azurite(t)
	cs := az.ConnectionString
	parts := partitionKeys("p%02d", 15)
	name := seed(t, az, parts, 100)
	// Rare columns on the first and the last entity of the scan.
	tbl := dynTableOf(t, cs, name)
	for _, k := range []struct{ pk, rk, col string }{{"p00", "0000", "AFirst"}, {"p14", "0099", "ZLast"}} {
		e := table.NewEntity(k.pk, k.rk)
		e.Properties[k.col] = "rare"
		if _, err := tbl.Upsert(context.Background(), e, table.Merge); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	file, ckpt := filepath.Join(dir, "out.csv"), filepath.Join(dir, "exp.ckpt")
	args := []string{"export", name, "-o", file, "--checkpoint", ckpt, "--parallel", "1"}
	killWhenCheckpointed(t, cs, ckpt, append(slices.Clip(args), "--checkpoint-every", "1ms")...)
	b, err := os.ReadFile(ckpt)
	if err != nil {
		t.Fatal(err)
	}
	var cp Checkpoint
	if err := json.Unmarshal(b, &cp); err != nil {
		t.Fatal(err)
	}
	// The killed run saves after every entity, each save a few syncs: it
	// cannot finish 1,500 entities in the milliseconds before the kill.
	if cp.Extra[extraColumnsPass] == "" {
		t.Fatalf("the checkpoint at the kill holds no position of the first pass: %s", b)
	}
	r := tk(t, cs, args...)
	wantCode(t, r, 0, "resumed export")
	if !regexp.MustCompile(`pass 1 of 2 \(columns\): 1500 entities \(\d+ in this run\)`).MatchString(r.stderr) {
		t.Errorf("the first pass did not resume where it stopped:\n%s", r.stderr)
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(recs[0], ","), "PartitionKey,RowKey,Timestamp,AFirst,AFirst@type,N,N@type,ZLast,ZLast@type"; got != want {
		t.Errorf("header %s, want %s", got, want)
	}
	keys := map[string]int{}
	for _, rec := range recs[1:] {
		keys[rec[0]+"/"+rec[1]]++
	}
	wantOnce(t, "export", keys, 1500)
}
