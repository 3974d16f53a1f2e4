package main

import (
	"errors"
	"io"
	"strings"
	"testing"
)

func TestFormatFromExtension(t *testing.T) {
	tests := []struct {
		path, format, delim string // flags given
		want                string
		wantDelim           rune
	}{
		{"a.csv", "", "", formatCSV, ','},
		{"a.CSV", "", "", formatCSV, ','},
		{"a.tsv", "", "", formatCSV, '\t'},
		{"a.tsv", "", ";", formatCSV, ';'},
		{"a.jsonl", "", "", formatJSONL, ','},
		{"a.json", "", "", formatJSONL, ','},
		{"a.txt", "jsonl", "", formatJSONL, ','},
		{"a.parquet", "csv", "", formatCSV, ','},
		{"a", "", "", formatJSONL, ','},
		{"-", "", "", formatJSONL, ','},
		{"-", "json", "", formatJSONL, ','},
		{"a.csv", "JSON", "", formatJSONL, ','},
		{"a.jsonl.gz", "", "", formatJSONL, ','},
		{"a.json.GZ", "", "", formatJSONL, ','},
		{"a.csv.gz", "", "", formatCSV, ','},
		{"a.tsv.gz", "", "", formatCSV, '\t'},
		{"a.gz", "", "", formatJSONL, ','},
		{"a.csv", "jsonl", "", formatJSONL, ','},
		{"a.jsonl", "csv", "tab", formatCSV, '\t'},
		{"dir.csv/a", "", "", formatJSONL, ','},
	}
	for _, tt := range tests {
		f := formatFlags{format: tt.format, delim: tt.delim}
		got, d, err := f.resolve(tt.path)
		if err != nil || got != tt.want || d != tt.wantDelim {
			t.Errorf("%s --format %q --delimiter %q: %s %q, %v; want %s %q", tt.path, tt.format, tt.delim, got, d, err, tt.want, tt.wantDelim)
		}
	}
	for _, bad := range []formatFlags{{format: "xml"}, {format: "parquet"}, {delim: `"`}, {delim: "ab"}, {delim: "\n"}, {delim: "\xff"}} {
		if _, _, err := bad.resolve("a.csv"); !errors.Is(err, errUsage) {
			t.Errorf("--format %q --delimiter %q: %v, want a usage error", bad.format, bad.delim, err)
		}
	}
	// An extension that names no format, and no --format: refused, not
	// written or read as JSON Lines.
	for _, path := range []string{"out.parquet", "a.txt", "a.xlsx.gz", "a.csv.zip"} {
		var f formatFlags
		if got, _, err := f.resolve(path); !errors.Is(err, errUsage) || !strings.Contains(err.Error(), "--format") {
			t.Errorf("%s: got %q, %v; want a usage error naming --format", path, got, err)
		}
	}
}

func TestIsGzip(t *testing.T) {
	tests := []struct {
		path string
		want bool
	}{
		{"a.jsonl.gz", true}, {"A.CSV.GZ", true}, {"a.jsonl", false}, {"-", false}, {"a.gzip", false}, {"gz", false},
	}
	for _, tt := range tests {
		if got := isGzip(tt.path); got != tt.want {
			t.Errorf("isGzip(%q) = %v, want %v", tt.path, got, tt.want)
		}
	}
}

// TestCheckFirst stops an input whose first line is not in the chosen
// format, with a hint, and gives back the first record of one that is.
func TestCheckFirst(t *testing.T) {
	tbl := dynTableForUnits(t)
	tests := []struct {
		name, format, in string
		hint             string // "": accepted
		records          int    // when accepted
	}{
		{"JSON Lines", formatJSONL, "\n{\"PartitionKey\":\"p\",\"RowKey\":\"r\"}\n{\"PartitionKey\":\"p\",\"RowKey\":\"s\"}", "", 2},
		{"a bad entity is a reject, not a format", formatJSONL, "{\"PartitionKey\":\"p/q\",\"RowKey\":\"r\"}\n", "", 1},
		{"empty", formatJSONL, "", "", 0},
		{"JSON Lines after a BOM", formatJSONL, "\ufeff{\"PartitionKey\":\"p\",\"RowKey\":\"r\"}\n", "", 1},
		{"CSV read as JSON Lines", formatJSONL, "PartitionKey,RowKey\np,r\n", "--format csv", 0},
		{"a JSON array", formatJSONL, "[{\"PartitionKey\":\"p\",\"RowKey\":\"r\"}]\n", "one entity per line", 0},
		{"garbage", formatJSONL, "\x00\x01binary", "not JSON Lines", 0},
		{"CSV", formatCSV, "PartitionKey,RowKey\np,r\np,s\n", "", 2},
		{"JSON Lines read as CSV", formatCSV, "{\"PartitionKey\":\"p\",\"RowKey\":\"r\"}\n", "--format jsonl", 0},
		{"another delimiter", formatCSV, "PartitionKey;RowKey\np;r\n", "--delimiter", 0},
		{"empty CSV", formatCSV, "", "no header", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			next := jsonlRecords(tbl, nil, strings.NewReader(tt.in), nil)
			if tt.format == formatCSV {
				next = csvRecords(tbl, strings.NewReader(tt.in), ',')
			}
			next, err := checkFirst(next, tt.format, "in")
			if tt.hint != "" {
				if !errors.Is(err, errUsage) || !strings.Contains(err.Error(), tt.hint) {
					t.Fatalf("err %v, want a usage error saying %q", err, tt.hint)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for {
				_, err := next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				n++
			}
			if n != tt.records {
				t.Errorf("%d records after the check, want %d", n, tt.records)
			}
		})
	}
}
