package query

import (
	"context"
	"errors"
	"testing"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/devtools/testenv"
)

// TestEmptyKeysRefused checks that queries refuse an empty key as every
// other call does (tablekit.ErrInvalid), whether the filter is built by Point,
// Partition or by hand, on Azurite.
func TestEmptyKeysRefused(t *testing.T) {
	svc := newService(t, "", nil)
	tbl := testenv.NewTable[item](t, svc)
	ctx := context.Background()
	filters := []struct {
		name string
		f    Filter
	}{
		{"Point empty PartitionKey", Point("", "r")},
		{"Point empty RowKey", Point("p", "")},
		{"Partition empty", Partition("")},
		{"hand-made point", And(PartitionKey.Eq(String("p")), RowKey.Eq(String("")))},
	}
	for _, tc := range filters {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Collect(New(tbl).Where(tc.f).All(ctx))
			if !errors.Is(err, tablekit.ErrInvalid) {
				t.Errorf("err = %v, want tablekit.ErrInvalid", err)
			}
		})
	}
	t.Run("PartitionSegments", func(t *testing.T) {
		c, err := New(tbl).Parallel(PartitionSegments("p", ""), nil)
		if err == nil {
			_, err = Collect(c.All(ctx))
		}
		if !errors.Is(err, tablekit.ErrInvalid) {
			t.Errorf("err = %v, want tablekit.ErrInvalid", err)
		}
	})
}
