package main

import (
	"context"
	"os"
	"path/filepath"
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
// CSV and imports them back: every byte survives, through the file too.
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
	file := filepath.Join(t.TempDir(), "out.csv")
	wantCode(t, tk(t, cs, "export", name, "-o", file, "--format", "csv"), 0, "export")
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range lineEndings {
		if quoted := `"` + strings.ReplaceAll(v, `"`, `""`) + `"`; !strings.Contains(string(b), quoted) {
			t.Errorf("the file does not hold %s quoted byte for byte, %q:\n%q", k, quoted, b)
		}
	}
	dst, dname := newDynTable(t, cs)
	wantCode(t, tk(t, cs, "import", dname, file, "--format", "csv"), 0, "import")
	checkSame(t, readTable(t, dst), want)
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
	wantCode(t, tk(t, cs, "import", dname, file, "--format", "csv"), 0, "import")
	checkSame(t, readTable(t, dst), map[string]table.Entity{
		"p/1": {Properties: map[string]any{"Note": "line one\r\nline two", "Ok": true}},
		"p/2": {Properties: map[string]any{"Note": "a lone \r and \n", "Ok": false}},
	})
}
