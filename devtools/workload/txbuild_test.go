package workload

import (
	"testing"

	"github.com/tablekit/tablekit/batch"
	"github.com/tablekit/tablekit/table"
)

// BenchmarkTxBuild builds a 100-operation transaction of upserts with
// batch.New and Upsert, typed and as table.Entity values: every entity
// encoded and validated, its $batch part written and the limits counted, as
// Submit then sends them (internal/txwire's BenchmarkBody has the body
// around the parts). No request is sent.
func BenchmarkTxBuild(b *testing.B) {
	b.Run("typed", func(b *testing.B) {
		benchTxBuild(b, TypedTable(&Service{}), txItems())
	})
	b.Run("entity", func(b *testing.B) {
		typed := TypedTable(&Service{})
		dyn := DynamicTable(&Service{})
		its := txItems()
		ents := make([]table.Entity, len(its))
		for i := range its {
			body, err := typed.Marshal(its[i])
			if err != nil {
				b.Fatal(err)
			}
			if ents[i], err = dyn.Unmarshal(body); err != nil {
				b.Fatal(err)
			}
		}
		benchTxBuild(b, dyn, ents)
	})
}

func benchTxBuild[T any](b *testing.B, t *table.Table[T], es []T) {
	build := func() *batch.Transaction[T] {
		tx := batch.New(t)
		for _, e := range es {
			tx.Upsert(e, table.Replace)
		}
		return tx
	}
	tx := build()
	if err := tx.Validate(); err != nil {
		b.Fatal(err)
	}
	if got, want := tx.Len(), len(es); got != want {
		b.Fatalf("transaction of %d operations, want %d", got, want)
	}
	if got, least := tx.Size(), len(es)*900; got < least {
		b.Fatalf("transaction body of %d bytes, want at least %d for %d entities of about 1 KB", got, least, len(es))
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := build().Validate(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(es)), "ns/entity")
}
