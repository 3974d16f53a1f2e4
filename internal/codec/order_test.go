package codec_test

import (
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tablekit/tablekit/internal/backend"
	"github.com/tablekit/tablekit/internal/codec"
	"github.com/tablekit/tablekit/table"
)

// A table.Entity's properties are written in name order whether its names
// are those of the entity before it (the kept order) or not, from any
// goroutine: tables that mix kinds of entity alternate sets of names.
func TestDynamicNameOrder(t *testing.T) {
	p, err := codec.For(reflect.TypeFor[table.Entity](), tableTypes)
	if err != nil {
		t.Fatal(err)
	}
	sets := [][]string{
		{"Total", "Customer", "Placed"},
		{"Sku", "Quantity"},
		{"Quantity", "Sku", "Total"},
		{"Customer", "Placed", "Total"},
		{},
	}
	prof := backend.Of(backend.TableStorage)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				names := sets[(i+g)%len(sets)]
				e := table.NewEntity("p", "r")
				for _, n := range names {
					e.Properties[n] = n
				}
				got, err := p.Marshal(reflect.ValueOf(&e).Elem(), &prof)
				if err != nil {
					t.Error(err)
					return
				}
				sorted := slices.Sorted(slices.Values(names))
				want := `{"PartitionKey":"p","RowKey":"r"`
				for _, n := range sorted {
					want += `,"` + n + `":"` + n + `"`
				}
				if want += "}"; string(got) != want {
					t.Errorf("names %s: got %s, want %s", strings.Join(names, ","), got, want)
					return
				}
			}
		}()
	}
	wg.Wait()
}
