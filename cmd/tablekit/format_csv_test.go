package main

import (
	"bytes"
	"errors"
	"io"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tablekit/tablekit/table"
)

// readAll reads every row, collecting rejects by line.
func readAll(t *testing.T, in string, delim rune) (rows []Row, rejects map[int]string, err error) {
	t.Helper()
	r := newCSVReader(strings.NewReader(in), delim)
	rejects = map[int]string{}
	for {
		row, err := r.Read()
		if err == io.EOF {
			return rows, rejects, nil
		}
		var rej *csvReject
		if errors.As(err, &rej) {
			rejects[rej.Line] = rej.Reason
			continue
		}
		if err != nil {
			return rows, rejects, err
		}
		rows = append(rows, row)
	}
}

func TestCSVRead(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		delim   rune
		want    []Row
		rejects []int // lines
	}{
		{
			name: "storage explorer export",
			in: "PartitionKey,RowKey,Timestamp,Age,Age@type,Name,Name@type\n" +
				"p1,r1,2024-01-02T03:04:05.123Z,42,Int32,Alice,String\n" +
				"p1,r2,2024-01-02T03:04:06Z,,,,String\n",
			want: []Row{
				{"p1", "r1", "2024-01-02T03:04:05.123Z", []Prop{{"Age", "Int32", "42"}, {"Name", "String", "Alice"}}},
				{"p1", "r2", "2024-01-02T03:04:06Z", []Prop{{"Name", "String", ""}}},
			},
		},
		{
			name: "no type columns: strings, empty cells absent",
			in:   "PartitionKey,RowKey,A,B\np,1,x,\np,2,,007\n",
			want: []Row{
				{"p", "1", "", []Prop{{"A", "String", "x"}}},
				{"p", "2", "", []Prop{{"B", "String", "007"}}},
			},
		},
		{
			name: "types on the first row only apply to the column",
			in:   "PartitionKey,RowKey,N,N@type,D,D@type\np,1,1,Int64,1.5,Double\np,2,2,,,\np,3,x,,2,\n",
			want: []Row{
				{"p", "1", "", []Prop{{"N", "Int64", "1"}, {"D", "Double", "1.5"}}},
				{"p", "2", "", []Prop{{"N", "Int64", "2"}}},
			},
			rejects: []int{4},
		},
		{
			name:  "semicolons, quotes, commas and newlines",
			in:    "PartitionKey;RowKey;Note;Note@type\n\"a;b\";1;\"say \"\"hi\"\", then\nbye\";Edm.String\n",
			delim: ';',
			want:  []Row{{"a;b", "1", "", []Prop{{"Note", "String", "say \"hi\", then\nbye"}}}},
		},
		{
			name: "every type, canonical text",
			in: "PartitionKey,RowKey,B,B@type,T,T@type,G,G@type,X,X@type\n" +
				"p,1,TRUE,Boolean,2024-01-02T04:04:05+01:00,DateTime,0F8FAD5B-D9CB-469F-A165-70867728950E,Guid,AAE=,Binary\n",
			want: []Row{{"p", "1", "", []Prop{
				{"B", "Boolean", "true"}, {"T", "DateTime", "2024-01-02T03:04:05Z"},
				{"G", "Guid", "0f8fad5b-d9cb-469f-a165-70867728950e"}, {"X", "Binary", "AAE="},
			}}},
		},
		{
			name: "rejects keep their line and reading goes on",
			in: "PartitionKey,RowKey,N,N@type\n" +
				"p,1,abc,Int32\n" + // line 2: not an Int32
				"p,2,1,Decimal\n" + // line 3: unknown type
				"p,3,1\n" + // line 4: too few fields
				"\"p,\"4,1,Int32\n" + // line 5: bare quote
				"p,5,99999999999,Int32\n" + // line 6: out of range
				"p,6,7,Int32\n",
			want:    []Row{{"p", "6", "", []Prop{{"N", "Int32", "7"}}}},
			rejects: []int{2, 3, 4, 5, 6},
		},
		{
			name:    "a quoted newline moves the line numbers on",
			in:      "PartitionKey,RowKey,S\n\"p\nq\",1,x\np,2,x,extra\n",
			want:    []Row{{"p\nq", "1", "", []Prop{{"S", "String", "x"}}}},
			rejects: []int{4},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			delim := tt.delim
			if delim == 0 {
				delim = ','
			}
			got, rejects, err := readAll(t, tt.in, delim)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("rows\n got %q\nwant %q", got, tt.want)
			}
			var lines []int
			for l := range rejects {
				lines = append(lines, l)
			}
			if len(lines) != len(tt.rejects) {
				t.Errorf("rejects %v, want lines %v", rejects, tt.rejects)
			}
			for _, l := range tt.rejects {
				if _, ok := rejects[l]; !ok {
					t.Errorf("no reject for line %d (got %v)", l, rejects)
				}
			}
		})
	}
}

func TestCSVBadHeader(t *testing.T) {
	tests := []string{
		"",
		"RowKey,A\n",
		"PartitionKey,RowKey,A,A\n",
		"PartitionKey,RowKey,B@type\n",
	}
	for _, in := range tests {
		_, _, err := readAll(t, in, ',')
		var rej *csvReject
		if err == nil || errors.As(err, &rej) {
			t.Errorf("header %q: err %v, want a fatal error", in, err)
		}
	}
}

func TestCSVWriteReadsBack(t *testing.T) {
	rows := []Row{
		{"p", "1", "2024-01-02T03:04:05Z", []Prop{{"Name", "String", "a,\"b\"\nc"}, {"N", "Int64", "9007199254740993"}}},
		{"p", "2", "", []Prop{{"Name", "String", ""}}},
		{"q", "3", "", nil},
	}
	var buf bytes.Buffer
	w := newCSVWriter(&buf, ',', []string{"Name", "N"})
	for _, r := range rows {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	wantHead := "PartitionKey,RowKey,Timestamp,Name,Name@type,N,N@type\n"
	if !strings.HasPrefix(buf.String(), wantHead) {
		t.Errorf("header %q, want %q", strings.SplitN(buf.String(), "\n", 2)[0], wantHead)
	}
	got, rejects, err := readAll(t, buf.String(), ',')
	if err != nil || len(rejects) > 0 {
		t.Fatal(err, rejects)
	}
	if !reflect.DeepEqual(got, rows) {
		t.Errorf("read back\n got %q\nwant %q", got, rows)
	}
	if err := w.Write(Row{Props: []Prop{{"Other", "String", "x"}}}); err == nil {
		t.Error("a property outside the columns was written")
	}
}

// TestDoubleText reads every spelling of NaN and the infinities that the
// service and other clients write, and writes the one Microsoft's SDKs
// write, so that a CSV export imports back.
func TestDoubleText(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"NaN", "NaN"}, {"nan", "NaN"},
		{"INF", "Infinity"}, {"-INF", "-Infinity"}, {"+INF", "Infinity"},
		{"Infinity", "Infinity"}, {"-Infinity", "-Infinity"}, {" infinity ", "Infinity"},
		{"1.5", "1.5"}, {"-0", "-0"}, {"1e308", "1e+308"},
	}
	for _, tt := range tests {
		got, err := checkValue(edmDouble, tt.in)
		if err != nil || got != tt.want {
			t.Errorf("checkValue(Double, %q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"1e999", "-1e999", "NaNa", "Inf1", "", "0x"} {
		if got, err := checkValue(edmDouble, bad); err == nil {
			t.Errorf("checkValue(Double, %q) = %q, want an error", bad, got)
		}
	}
}

func TestValueRoundTrip(t *testing.T) {
	g, _ := table.ParseGUID("0f8fad5b-d9cb-469f-a165-70867728950e")
	tests := []any{
		"x", int32(-7), int64(1) << 62, 1.0, 0.1, true, math.Inf(1), math.Inf(-1),
		time.Date(2024, 1, 2, 3, 4, 5, 1234567*100, time.UTC), g, []byte{0, 1, 255},
	}
	for _, want := range tests {
		typ, s, err := formatValue(want)
		if err != nil {
			t.Fatal(err)
		}
		got, err := parseValue(typ, s)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%T %v -> %s %q -> %v, %v", want, want, typ, s, got, err)
		}
	}
	typ, s, _ := formatValue(math.NaN())
	if got, err := parseValue(typ, s); err != nil || !math.IsNaN(got.(float64)) {
		t.Errorf("NaN -> %s %q -> %v, %v", typ, s, got, err)
	}
}
