package codec_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/tablekit/tablekit/devtools/workload"
	"github.com/tablekit/tablekit/internal/backend"
	"github.com/tablekit/tablekit/internal/codec"
	"github.com/tablekit/tablekit/internal/wire"
	"github.com/tablekit/tablekit/table"
)

// The codec's micro-benchmarks: encoding and decoding the benchmark entity
// (devtools/workload, about 1 KB of JSON) typed and as a table.Entity, and
// decoding a whole 1,000-entity query page as package query does. They need
// no emulator; CONTRIBUTING.md has the command that compares two commits.

// tableTypes tells the codec which types are table's, as package table
// does for its plans.
var tableTypes = codec.Types{
	Entity:    reflect.TypeFor[table.Entity](),
	RawEntity: reflect.TypeFor[table.RawEntity](),
	GUID:      reflect.TypeFor[table.GUID](),
	MakeGUID:  guidMaker{},
}

type guidMaker struct{}

func (guidMaker) MakeGUID(b [16]byte) any { return table.GUID(b) }

// planOf is the codec's plan of T, as a table holds it.
func planOf[T any](b *testing.B) *codec.Plan {
	b.Helper()
	p, err := codec.For(reflect.TypeFor[T](), tableTypes)
	if err != nil {
		b.Fatal(err)
	}
	return p
}

func unmarshal[T any](p *codec.Plan, data []byte) (T, error) {
	var v T
	err := p.Decode(data, reflect.ValueOf(&v).Elem())
	return v, err
}

func keysOf[T any](p *codec.Plan, v *T) (pk, rk string) { return p.Keys(reflect.ValueOf(v).Elem()) }

// benchPage is a query page of the benchmark entities as the service sends
// it, and each entity of it as a slice of the page.
func benchPage(b *testing.B) (items []workload.Item, page []byte, entities [][]byte) {
	b.Helper()
	items = workload.Items(0, workload.PageSize)
	page = workload.PageBody(items)
	if err := codec.PageEntities(page, func(e []byte) error {
		entities = append(entities, e)
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	if got, want := len(entities), len(items); got != want {
		b.Fatalf("page holds %d entities, want %d", got, want)
	}
	return items, page, entities
}

// dynamicEntities decodes entities into table.Entity values, checking that
// each keeps the keys of the typed item it came from.
func dynamicEntities(b *testing.B, items []workload.Item, entities [][]byte) []table.Entity {
	b.Helper()
	out := make([]table.Entity, len(entities))
	p := planOf[table.Entity](b)
	for i, e := range entities {
		d, err := unmarshal[table.Entity](p, e)
		if err != nil {
			b.Fatal(err)
		}
		if got, want := d.RowKey, items[i].RowKey; got != want {
			b.Fatalf("entity %d: RowKey %q, want %q", i, got, want)
		}
		out[i] = d
	}
	return out
}

func BenchmarkEncode(b *testing.B) {
	items, _, entities := benchPage(b)
	prof := backend.Of(backend.TableStorage)
	b.Run("typed", func(b *testing.B) {
		benchEncode(b, items, &prof)
	})
	b.Run("entity", func(b *testing.B) {
		benchEncode(b, dynamicEntities(b, items, entities), &prof)
	})
	// raw: the entity as an import or a restore writes it, its properties
	// the JSON read back, each checked against its type as it is copied.
	b.Run("raw", func(b *testing.B) {
		p := planOf[table.RawEntity](b)
		raws := make([]table.RawEntity, len(entities))
		for i, e := range entities {
			r, err := unmarshal[table.RawEntity](p, e)
			if err != nil {
				b.Fatal(err)
			}
			raws[i] = r
		}
		benchEncode(b, raws, &prof)
	})
}

// benchEncode encodes one entity per operation, as Table.Marshal and every
// write do, after checking that the first one decodes back to its keys.
func benchEncode[T any](b *testing.B, vals []T, prof *backend.Profile) {
	p := planOf[T](b)
	first, err := p.Marshal(reflect.ValueOf(&vals[0]).Elem(), prof)
	if err != nil {
		b.Fatal(err)
	}
	got, err := unmarshal[T](p, first)
	if err != nil {
		b.Fatal(err)
	}
	gpk, grk := keysOf(p, &got)
	wpk, wrk := keysOf(p, &vals[0])
	if gpk != wpk || grk != wrk {
		b.Fatalf("encoded keys %q/%q, want %q/%q", gpk, grk, wpk, wrk)
	}
	b.SetBytes(int64(len(first)))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := p.Marshal(reflect.ValueOf(&vals[i%len(vals)]).Elem(), prof); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

func BenchmarkDecode(b *testing.B) {
	items, _, entities := benchPage(b)
	b.Run("typed", func(b *testing.B) {
		got, err := unmarshal[workload.Item](planOf[workload.Item](b), entities[0])
		if err != nil {
			b.Fatal(err)
		}
		got.Meta = items[0].Meta
		if got != items[0] {
			b.Fatalf("decoded %+v\nwant %+v", got, items[0])
		}
		benchDecode[workload.Item](b, entities)
	})
	b.Run("entity", func(b *testing.B) {
		dynamicEntities(b, items, entities[:1])
		benchDecode[table.Entity](b, entities)
	})
	b.Run("raw", func(b *testing.B) { benchDecode[table.RawEntity](b, entities) })
}

// benchDecode decodes one entity of a page per operation, as Table.Unmarshal
// does.
func benchDecode[T any](b *testing.B, entities [][]byte) {
	p := planOf[T](b)
	b.SetBytes(int64(len(entities[0])))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := unmarshal[T](p, entities[i%len(entities)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

func BenchmarkPage(b *testing.B) {
	items, page, _ := benchPage(b)
	b.Run("typed", func(b *testing.B) { benchPageDecode[workload.Item](b, page, len(items)) })
	b.Run("entity", func(b *testing.B) { benchPageDecode[table.Entity](b, page, len(items)) })
	b.Run("raw", func(b *testing.B) { benchPageDecode[table.RawEntity](b, page, len(items)) })
	b.Run("check", func(b *testing.B) { benchPageCheck(b, page, len(items)) })
}

// benchPageCheck scans the page's syntax once, as the retry layer checks
// every read's body before handing it on.
func benchPageCheck(b *testing.B, page []byte, entities int) {
	check := func() error {
		s := wire.Scanner{Data: page}
		if err := s.Skip(); err != nil {
			return err
		}
		return s.End()
	}
	if err := check(); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	for b.Loop() {
		if err := check(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(entities), "ns/entity")
}

// benchPageDecode decodes every entity of a query page's body where it lies,
// one page per operation, as package query fills a page.
func benchPageDecode[T any](b *testing.B, page []byte, want int) {
	p := planOf[T](b)
	decode := func() (int, error) {
		n := 0
		err := codec.PageEntitiesAt(page, func(rest []byte) (int, error) {
			var e T
			used, err := p.DecodeAt(rest, reflect.ValueOf(&e).Elem())
			if pk, _ := keysOf(p, &e); err == nil && pk == "" {
				return used, errNoKeys
			}
			n++
			return used, err
		})
		return n, err
	}
	if n, err := decode(); err != nil || n != want {
		b.Fatalf("page decoded %d entities (%v), want %d", n, err, want)
	}
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := decode(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(want), "ns/entity")
}

var errNoKeys = errors.New("entity decoded without keys")
