package main

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/tablekit/tablekit/table"
)

// dynTableForUnits is a table handle for unit tests: they encode and
// decode with it, and send nothing.
func dynTableForUnits(t *testing.T) *dynTable {
	t.Helper()
	return tableForUnits[table.Entity](t)
}

// tableForUnits is dynTableForUnits for any entity type.
func tableForUnits[E any](t *testing.T) *table.Table[E] {
	t.Helper()
	svc, err := table.NewService(devConn, nil)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := table.New[E](svc, "lines")
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// TestLineWriterMatchesCodec holds the export's JSON lines, written through
// Table.AppendJSON, equal byte for byte to Table.Marshal's form with
// Timestamp added: the JSON Lines format has one definition, the codec's.
func TestLineWriterMatchesCodec(t *testing.T) {
	tbl := dynTableForUnits(t)
	ts := time.Date(2024, 5, 6, 7, 8, 9, 123456700, time.UTC)
	withTS := func(e table.Entity) table.Entity { e.Timestamp = ts; return e }
	mk := func(pk, rk string, props map[string]any) table.Entity {
		e := table.NewEntity(pk, rk)
		e.Properties = props
		return e
	}
	tests := []struct {
		name string
		e    table.Entity
	}{
		{"every type at its edges", withTS(mk("pk", "rk", edgeProps()))},
		{"no properties, no timestamp", mk("a", "b", nil)},
		{"escapes in keys and names", withTS(mk("é \"q\" \u2028", "rk\u2029", map[string]any{
			"Ctl": "\x01\x1f\u2029<>&", "Ünï": "x", "N": int32(-7),
		}))},
		{"local time zone", withTS(mk("p", "r", map[string]any{"When": time.Date(2024, 1, 2, 3, 4, 5, 600, time.FixedZone("X", 3600))}))},
		{"same names again", withTS(mk("p", "r2", map[string]any{"When": time.Date(1601, 1, 1, 0, 0, 0, 100, time.UTC)}))},
		{"other names, as many", withTS(mk("p", "r3", map[string]any{"Then": int64(5)}))},
	}
	w := lineWriter{t: tbl}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, err := tbl.Marshal(tt.e)
			if err != nil {
				t.Fatal(err)
			}
			want = want[:len(want)-1]
			if !tt.e.Timestamp.IsZero() {
				want = append(want, `,"Timestamp@odata.type":"Edm.DateTime","Timestamp":"`+tt.e.Timestamp.Format(timestampLayout)+`"`...)
			}
			want = append(want, "}\n"...)
			got, err := w.line(tt.e)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("line\n got %s\nwant %s", got, want)
			}
			back, err := parseLine(tbl, got)
			if err != nil {
				t.Fatalf("parseLine: %v", err)
			}
			if !sameProps(back.Properties, tt.e.Properties) && len(tt.e.Properties) > 0 {
				t.Errorf("read back %v, want %v", back.Properties, tt.e.Properties)
			}
		})
	}
}

func TestLineWriterRefuses(t *testing.T) {
	tbl := dynTableForUnits(t)
	tests := []struct {
		name string
		v    any
	}{
		{"zero time", time.Time{}},
		{"nil", nil},
		{"int", 3},
		{"bad name", "x"},
	}
	w := lineWriter{t: tbl}
	for _, tt := range tests {
		e := table.NewEntity("p", "r")
		if tt.name == "bad name" {
			e.Properties["a b"] = tt.v
		} else {
			e.Properties["X"] = tt.v
		}
		if got, err := w.line(e); err == nil {
			t.Errorf("%s: wrote %s, want an error", tt.name, got)
		}
	}
}

// TestLineWriterNaN holds the command's JSON form of NaN and the
// infinities to what Microsoft's SDKs write: a string, annotated.
func TestLineWriterNaN(t *testing.T) {
	tbl := dynTableForUnits(t)
	tests := []struct {
		f    float64
		want string
	}{
		{math.NaN(), `"X@odata.type":"Edm.Double","X":"NaN"`},
		{math.Inf(1), `"X@odata.type":"Edm.Double","X":"Infinity"`},
		{math.Inf(-1), `"X@odata.type":"Edm.Double","X":"-Infinity"`},
		{-2.5, `"X@odata.type":"Edm.Double","X":-2.5`},
	}
	w := lineWriter{t: tbl}
	for _, tt := range tests {
		e := table.NewEntity("p", "r")
		e.Properties["X"] = tt.f
		got, err := w.line(e)
		if err != nil {
			t.Fatalf("%v: %v", tt.f, err)
		}
		if want := `{"PartitionKey":"p","RowKey":"r",` + tt.want + "}\n"; string(got) != want {
			t.Errorf("%v: got %s, want %s", tt.f, got, want)
		}
	}
}

// TestSameProps is how a replayed add recognizes its own write: the same
// values of the same types, NaN equal to NaN.
func TestSameProps(t *testing.T) {
	tests := []struct {
		a, b any
		want bool
	}{
		{math.NaN(), math.NaN(), true},
		{math.Inf(1), math.Inf(1), true},
		{math.Inf(1), math.Inf(-1), false},
		{1.0, int32(1), false},
		{int32(1), int64(1), false},
		{[]byte{1}, []byte{1}, true},
		{time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC), time.Date(2024, 1, 2, 4, 4, 5, 0, time.FixedZone("X", 3600)), true},
		{"a\r\n", "a\n", false},
	}
	for _, tt := range tests {
		if got := sameProps(map[string]any{"X": tt.a}, map[string]any{"X": tt.b}); got != tt.want {
			t.Errorf("sameProps(%v %T, %v %T) = %v, want %v", tt.a, tt.a, tt.b, tt.b, got, tt.want)
		}
	}
	if sameProps(map[string]any{"X": 1}, map[string]any{"Y": 1}) {
		t.Error("different names are the same")
	}
}

// TestSplitExported checks splitLine's quick path for exported lines: it
// takes the lines laid out as export writes them and splits each exactly
// as the full scan does, and leaves to the scan every line it could split
// otherwise (a member the scan drops or reads as a key, another layout).
func TestSplitExported(t *testing.T) {
	const ts = `,"Timestamp@odata.type":"Edm.DateTime","Timestamp":"2026-11-26T10:00:00.1234567Z"`
	for _, tc := range []struct {
		line   string
		wantOK bool
	}{
		{`{"PartitionKey":"p","RowKey":"r","N":1,"S":"x"` + ts + `}`, true},
		{`{"PartitionKey":"p","RowKey":"r","N":1}`, true},
		{`{"PartitionKey":"p","RowKey":"r"}`, true},
		{`{"PartitionKey":"p","RowKey":"r"` + ts + `}`, true},
		{`{"PartitionKey":"p\u00e9","RowKey":"r\"q","N@odata.type":"Edm.Int64","N":"5","S":"a,\"Timestamp\":1"` + ts + `}`, false}, // "Timestamp in a value: scanned
		{`{"PartitionKey":"pé","RowKey":"r\"q","N@odata.type":"Edm.Int64","N":"5","S":"a\\b"` + ts + `}`, true},
		{`{"PartitionKey":"p","RowKey":"r","odata.etag":"W/x","N":1}`, false},
		{`{"PartitionKey":"p","RowKey":"r","N":1,"PartitionKey":"q"}`, false},
		{`{"PartitionKey":"p","RowKey":"r","Partition\u004bey":"q"}`, false},
		{`{"PartitionKey":"p","RowKey":"r","Timestamp":"2026-11-26T10:00:00Z","N":1}`, false},
		{`{"PartitionKey":"p","RowKey":"r","N":1,"S":"` + ts[1:] + `"}`, false}, // the Timestamp's bytes inside a string
		{`{"RowKey":"r","PartitionKey":"p","N":1}`, false},
		{`{"PartitionKey": "p","RowKey":"r"}`, true}, // the key read as the scan reads it
		{`{"PartitionKey":"p","RowKey":"r" ,"N":1}`, false},
		{`{"PartitionKey":1,"RowKey":"r"}`, false},
		{`{"PartitionKey":"p","RowKey":"r","N":1,"Timestamp@odata.type":"Edm.DateTime","Timestamp":"2026-11-26T10:00:0\u0030Z"}`, false}, // an escape in its value
		{`{"PartitionKey":"p","RowKey":"r"` + ts + `,"N":1}`, false},                                                                     // not last
		{`{"PartitionKey":"p","RowKey":"r","N":1,"odata.etag":"W/x"` + ts + `}`, false},
		{`{"PartitionKey":"p","RowKey":"r","A@odata.type":"Edm.Double","A":1.5,"S":"a.b odata. c\\d"` + ts + `}`, true}, // dots, odata. and a backslash that name nothing
	} {
		var fast, full slab
		got, head, tail, ok := splitExported([]byte(tc.line), &fast)
		if ok != tc.wantOK {
			t.Errorf("%s: quick path %v, want %v", tc.line, ok, tc.wantOK)
			continue
		}
		if !ok {
			continue
		}
		want, _, err := scanLine([]byte(tc.line), &full, nil)
		if err != nil {
			t.Errorf("%s: the scan refuses a line the quick path split: %v", tc.line, err)
			continue
		}
		if got.PartitionKey != want.PartitionKey || got.RowKey != want.RowKey || string(got.Properties) != string(want.Properties) {
			t.Errorf("%s: got %q %q %s, want %q %q %s", tc.line, got.PartitionKey, got.RowKey, got.Properties, want.PartitionKey, want.RowKey, want.Properties)
		}
		// The line, for --rejects, is what is kept around the members.
		it := item{raw: got, head: head, tail: tail}
		if in := it.input(); in != tc.line {
			t.Errorf("%s: the line kept reads %s", tc.line, in)
		}
	}
}

// TestKeepAround checks that a line kept in pieces around its members
// reads back whole, from a slab shared with other lines and alone when it
// is large, and that no piece shares memory with the line it copies.
func TestKeepAround(t *testing.T) {
	var s slab
	s.keep([]byte("an earlier line"))
	big := `{"k":"p",` + strings.Repeat("x", slabSize) + `,"t":1}`
	for _, tc := range []struct {
		line string
		i, j int // the members' bounds
	}{
		{`{"k":"p","a":1,"t":1}`, 9, 14},
		{`{"k":"p","t":1}`, 8, 8},
		{big, 9, 9 + slabSize},
	} {
		line, i, j := tc.line, tc.i, tc.j
		b := []byte(line)
		head, obj, tail := s.keepAround(b, i, j)
		clear(b) // the kept pieces are copies
		if got, want := string(head)+string(obj[1:len(obj)-1])+string(tail), line; got != want {
			t.Errorf("pieces read %.40q, want %.40q", got, want)
		}
		if got, want := string(obj), "{"+line[i:j]+"}"; got != want {
			t.Errorf("object %.40q, want %.40q", got, want)
		}
		if cap(head) != len(head) || cap(obj) != len(obj) || cap(tail) != len(tail) {
			t.Errorf("a piece can grow into the next: caps %d %d %d, lengths %d %d %d", cap(head), cap(obj), cap(tail), len(head), len(obj), len(tail))
		}
	}
}
