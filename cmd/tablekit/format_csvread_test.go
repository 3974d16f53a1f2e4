package main

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
)

// readRecords reads every record of in, each error as "line:err".
func readRecords(in string, comma rune) (recs [][]string, lines []int, errs []string) {
	r := newRFCReader(bufio.NewReader(strings.NewReader(in)), comma)
	for {
		rec, line, err := r.Read()
		if err == io.EOF {
			return
		}
		if err != nil {
			errs = append(errs, fmt.Sprintf("%v", err))
			continue
		}
		recs = append(recs, rec)
		lines = append(lines, line)
	}
}

func TestRFCReaderKeepsBytes(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		want  [][]string
		lines []int
		errs  int
	}{
		{"CR LF inside quotes", "a,b\r\n\"x\r\ny\",2\r\n", [][]string{{"a", "b"}, {"x\r\ny", "2"}}, []int{1, 2}, 0},
		{"lone CR inside quotes", "a,b\n\"x\ry\",\"\r\"\n", [][]string{{"a", "b"}, {"x\ry", "\r"}}, []int{1, 2}, 0},
		{"LF inside quotes", "a,b\n\"x\ny\",2\n", [][]string{{"a", "b"}, {"x\ny", "2"}}, []int{1, 2}, 0},
		{"all three, then the next record's line", "a\n\"1\r\n2\r3\n4\"\nz\n", [][]string{{"a"}, {"1\r\n2\r3\n4"}, {"z"}}, []int{1, 2, 5}, 0},
		{"CR LF ends records, empty lines skipped", "a,b\r\n\r\n1,2\r\n\n3,4", [][]string{{"a", "b"}, {"1", "2"}, {"3", "4"}}, []int{1, 3, 5}, 0},
		{"a CR before the end is dropped", "a,b\r\n1,2\r", [][]string{{"a", "b"}, {"1", "2"}}, []int{1, 2}, 0},
		{"a CR inside a field without quotes stays", "a,b\nx\ry,2\n", [][]string{{"a", "b"}, {"x\ry", "2"}}, []int{1, 2}, 0},
		{"quotes doubled, delimiter inside", "a,b\n\"say \"\"hi\"\", ok\",\"\"\n", [][]string{{"a", "b"}, {"say \"hi\", ok", ""}}, []int{1, 2}, 0},
		{"a field count error, then on", "a,b\n1\n2,3\n", [][]string{{"a", "b"}, {"2", "3"}}, []int{1, 3}, 1},
		{"a quote left open to the end", "a,b\n\"x\r\n", [][]string{{"a", "b"}}, []int{1}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, lines, errs := readRecords(tt.in, ',')
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("records\n got %q\nwant %q", got, tt.want)
			}
			if !reflect.DeepEqual(lines, tt.lines) {
				t.Errorf("lines %v, want %v", lines, tt.lines)
			}
			if len(errs) != tt.errs {
				t.Errorf("errors %q, want %d", errs, tt.errs)
			}
		})
	}
}

// FuzzRFCReader holds rfcReader equal to encoding/csv: the same records,
// lines and errors, once the CR LF that encoding/csv drops from quoted
// fields is put back as the LF it leaves.
func FuzzRFCReader(f *testing.F) {
	for _, s := range []string{
		"a,b\n1,2\n", "a,b\r\n\"x\r\ny\",2\r\n", "\"a\"\"b\",c\n", "a\n\n\nb\n", "a,\"b\nc\"\n,d\n",
		"\"unterminated\n", "a\"b,c\n", "\"a\"x,b\n", "a,b\n1,2,3\n", "x\r", "\"x\r\r\n\"\n", "é;\"ü\n\";z\n",
		"\"a\"\r", "\"\"\"\",\r\n", "a,\"b\r\nc\r\n",
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, in string, semicolon bool) {
		comma := ','
		if semicolon {
			comma = ';'
		}
		std := csv.NewReader(strings.NewReader(in))
		std.Comma = comma
		ours := newRFCReader(bufio.NewReaderSize(strings.NewReader(in), 16), comma)
		for i := 0; ; i++ {
			wantRec, wantErr := std.Read()
			gotRec, gotLine, gotErr := ours.Read()
			if (wantErr == nil) != (gotErr == nil) || errors.Is(wantErr, io.EOF) != errors.Is(gotErr, io.EOF) {
				t.Fatalf("record %d of %q: err %v, want %v", i, in, gotErr, wantErr)
			}
			var wpe, gpe *csv.ParseError
			if errors.As(wantErr, &wpe) && (!errors.As(gotErr, &gpe) || *gpe != *wpe) {
				t.Fatalf("record %d of %q: err %#v, want %#v", i, in, gotErr, wantErr)
			}
			if errors.Is(wantErr, io.EOF) {
				return
			}
			if wantErr != nil {
				continue
			}
			for j := range gotRec {
				gotRec[j] = strings.ReplaceAll(gotRec[j], "\r\n", "\n")
			}
			if !reflect.DeepEqual(gotRec, wantRec) {
				t.Fatalf("record %d of %q: %q, want %q", i, in, gotRec, wantRec)
			}
			if wantLine, _ := std.FieldPos(0); gotLine != wantLine {
				t.Fatalf("record %d of %q: line %d, want %d", i, in, gotLine, wantLine)
			}
		}
	})
}
