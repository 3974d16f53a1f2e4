package main

import (
	"testing"
	"time"

	"github.com/tablekit/tablekit/devtools/workload"
	"github.com/tablekit/tablekit/table"
)

// BenchmarkJSONLine compares, per entity of the benchmark workload, the
// line writer of query, get and verify (Table.AppendJSON into one buffer)
// with Table.Marshal and the Timestamp appended, a new buffer per entity,
// the form TestLineWriterMatchesCodec holds them to, and export's line
// (RawEntity.AppendJSON of the raw entity a scan reads: a copy). Run it on
// an older commit for the command's own writer that lineWriter replaced
// (same name).
func BenchmarkJSONLine(b *testing.B) {
	dyn := workload.DynamicTable(&workload.Service{})
	ents, raws := benchEntities(b, dyn)
	b.Run("raw", func(b *testing.B) {
		var buf []byte
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			buf = append(raws[i%len(raws)].AppendJSON(buf[:0]), '\n')
		}
	})
	b.Run("lineWriter", func(b *testing.B) {
		w := lineWriter{t: dyn}
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			if _, err := w.line(ents[i%len(ents)]); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("codec", func(b *testing.B) {
		var buf []byte
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			e := ents[i%len(ents)]
			body, err := dyn.Marshal(e)
			if err != nil {
				b.Fatal(err)
			}
			buf = append(append(buf[:0], body[:len(body)-1]...), `,"Timestamp@odata.type":"Edm.DateTime","Timestamp":"`...)
			buf = append(e.Timestamp.UTC().AppendFormat(buf, timestampLayout), '"', '}', '\n')
		}
	})
}

// BenchmarkSplitLine is import's reading of a line export wrote, per
// entity of the benchmark workload: splitLine's quick path
// (splitExported), keys read and properties found by their bounds.
func BenchmarkSplitLine(b *testing.B) {
	_, raws := benchEntities(b, workload.DynamicTable(&workload.Service{}))
	var lines [][]byte
	for _, r := range raws {
		lines = append(lines, r.AppendJSON(nil))
	}
	var texts slab
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		it, _, err := splitLine(lines[i%len(lines)], &texts, nil)
		if err != nil || it.head == nil {
			b.Fatalf("not split by the quick path: %v", err)
		}
	}
}

// benchEntities is 64 entities of the benchmark workload as dyn reads them
// and as raw entities, each with a Timestamp, as a query returns them.
func benchEntities(b *testing.B, dyn *table.Table[table.Entity]) ([]table.Entity, []table.RawEntity) {
	b.Helper()
	typed := workload.TypedTable(&workload.Service{})
	raw, err := table.As[table.RawEntity](dyn)
	if err != nil {
		b.Fatal(err)
	}
	ts := time.Date(2024, 5, 6, 7, 8, 9, 123456700, time.UTC)
	var ents []table.Entity
	var raws []table.RawEntity
	for _, it := range workload.Items(0, 64) {
		body, err := typed.Marshal(it)
		if err != nil {
			b.Fatal(err)
		}
		e, err := dyn.Unmarshal(body)
		if err != nil {
			b.Fatal(err)
		}
		r, err := raw.Unmarshal(body)
		if err != nil {
			b.Fatal(err)
		}
		e.Timestamp, r.Timestamp = ts, ts
		ents, raws = append(ents, e), append(raws, r)
	}
	return ents, raws
}
