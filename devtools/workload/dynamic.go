package workload

import (
	"context"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"

	"github.com/tablekit/tablekit/table"
)

// DynamicTable is TypedTable for table.Entity: the same table and options.
func DynamicTable(tr policy.Transporter) *table.Table[table.Entity] {
	t, err := table.As[table.Entity](TypedTable(tr))
	if err != nil {
		panic(err)
	}
	return t
}

// dynamicItems is the fixture's items as table.Entity values, converted
// once: the benchmark measures writing them, not converting them.
func dynamicItems() []table.Entity {
	its, _, _ := fixture()
	typed := TypedTable(&Service{})
	dyn := DynamicTable(&Service{})
	out := make([]table.Entity, len(its))
	for i, it := range its {
		body, err := typed.Marshal(it)
		if err != nil {
			panic(err)
		}
		if out[i], err = dyn.Unmarshal(body); err != nil {
			panic(err)
		}
	}
	return out
}

// WriteDynamic inserts the benchmark entity as a table.Entity with
// Table.Add: the dynamic encode, validation and submit.
func WriteDynamic(b *testing.B) {
	its := dynamicItems()
	t := DynamicTable(&Service{})
	ctx := context.Background()
	run(b, 1, func(i int) error {
		_, err := t.Add(ctx, its[i%len(its)])
		return err
	})
}

// DecodeDynamic decodes each entity of the page into a table.Entity.
func DecodeDynamic(b *testing.B) {
	_, _, pg := fixture()
	t := DynamicTable(&Service{})
	run(b, len(pg), func(int) error {
		for _, e := range pg {
			it, err := t.Unmarshal(e)
			if err != nil {
				return err
			}
			Sink = it.RowKey
		}
		return nil
	})
}
