package workload

import (
	"testing"

	"github.com/tablekit/tablekit/table"
)

// The steps the tablekit command adds over the library's own reads and
// writes, measured beside their typed counterparts: export reads raw
// entities (table.RawEntity: the service's bytes, each value checked
// against its type) where a typed scan decodes fields, and import writes
// them, checking each value as it copies it, where batch.Write encodes
// typed fields.

// RawTable is TypedTable's table reading raw entities.
func RawTable() *table.Table[table.RawEntity] {
	t, err := table.As[table.RawEntity](TypedTable(&Service{}))
	if err != nil {
		panic(err)
	}
	return t
}

// DecodeRaw decodes each entity of the page as a table.RawEntity.
func DecodeRaw(b *testing.B) {
	_, _, pg := fixture()
	t := RawTable()
	run(b, len(pg), func(int) error {
		for _, e := range pg {
			r, err := t.Unmarshal(e)
			if err != nil {
				return err
			}
			Sink = r.RowKey
		}
		return nil
	})
}

// EncodeTyped encodes each item of the page as a write sends it.
func EncodeTyped(b *testing.B) {
	its, _, _ := fixture()
	t := TypedTable(&Service{})
	run(b, len(its), func(int) error {
		for i := range its {
			body, err := t.Marshal(its[i])
			if err != nil {
				return err
			}
			sinkBytes += len(body)
		}
		return nil
	})
	Sink = sinkBytes
}

// EncodeRaw encodes each entity of the page, read back as a raw entity,
// as import writes it.
func EncodeRaw(b *testing.B) {
	_, _, pg := fixture()
	t := RawTable()
	raws := make([]table.RawEntity, len(pg))
	for i, e := range pg {
		r, err := t.Unmarshal(e)
		if err != nil {
			b.Fatal(err)
		}
		raws[i] = r
	}
	run(b, len(raws), func(int) error {
		for i := range raws {
			body, err := t.Marshal(raws[i])
			if err != nil {
				return err
			}
			sinkBytes += len(body)
		}
		return nil
	})
	Sink = sinkBytes
}

// sinkBytes keeps encoded bodies used, as Sink does decoded values (and
// Sink it, once a benchmark is done).
var sinkBytes int
