package table_test

import (
	"errors"
	"testing"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/table"
)

type keyed struct {
	PartitionKey, RowKey string
	N                    int32
}

// TestEmptyKeysRefused checks that every call refuses an empty key with
// tablekit.ErrInvalid before any request: aztables v1.4.1 cannot address such an
// entity on some paths, so no path takes one.
func TestEmptyKeysRefused(t *testing.T) {
	tbl, rec := newRecordedTable[keyed](t, nil)
	ctx := testenv.Ctx(t)
	for _, k := range []struct{ name, pk, rk string }{{"empty PartitionKey", "", "r"}, {"empty RowKey", "p", ""}, {"both empty", "", ""}} {
		e := keyed{PartitionKey: k.pk, RowKey: k.rk}
		calls := []struct {
			name string
			call func() error
		}{
			{"Add", func() error { _, err := tbl.Add(ctx, e); return err }},
			{"Upsert", func() error { _, err := tbl.Upsert(ctx, e, table.Merge); return err }},
			{"Update", func() error { _, err := tbl.Update(ctx, e, table.Replace, table.AnyETag); return err }},
			{"Get", func() error { _, err := tbl.Get(ctx, k.pk, k.rk, nil); return err }},
			{"Get with Select", func() error { _, err := tbl.Get(ctx, k.pk, k.rk, &table.GetOptions{Select: []string{"N"}}); return err }},
			{"Delete", func() error { return tbl.Delete(ctx, k.pk, k.rk, table.AnyETag) }},
			{"Verify", func() error { _, _, err := tbl.Verify(ctx, e, table.Replace); return err }},
			{"Marshal", func() error { _, err := tbl.Marshal(e); return err }},
		}
		for _, c := range calls {
			t.Run(k.name+"/"+c.name, func(t *testing.T) {
				before := rec.Count()
				err := c.call()
				if !errors.Is(err, tablekit.ErrInvalid) {
					t.Errorf("err = %v, want tablekit.ErrInvalid", err)
				}
				if got := rec.Count() - before; got != 0 {
					t.Errorf("sent %d requests, want 0", got)
				}
			})
		}
	}
}
