package table_test

import (
	"errors"
	"math"
	"testing"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/table"
)

// A Rate that cannot be kept is refused before any request.
func TestRateRefused(t *testing.T) {
	tests := []struct {
		name  string
		rate  table.Rate
		field string
	}{
		{"negative", table.Rate{EntitiesPerSecond: -1}, "Rate.EntitiesPerSecond"},
		{"NaN", table.Rate{RequestsPerSecond: math.NaN()}, "Rate.RequestsPerSecond"},
		{"infinite partition", table.Rate{PartitionEntitiesPerSecond: math.Inf(1)}, "Rate.PartitionEntitiesPerSecond"},
		{"negative floor", table.Rate{MinEntitiesPerSecond: -5}, "Rate.MinEntitiesPerSecond"},
		{"fixed without a cap", table.Rate{Fixed: true}, "Rate.Fixed"},
	}
	for _, tt := range tests {
		r := tt.rate
		_, err := table.NewServiceWithSharedKey("http://127.0.0.1:1/devstoreaccount1", "devstoreaccount1", "a2V5", &table.Options{Rate: &r})
		var ve *tablekit.ValidationError
		if !errors.As(err, &ve) || ve.Field != tt.field {
			t.Errorf("%s: got %v, want a ValidationError of %s", tt.name, err, tt.field)
		}
	}
	ok := table.Rate{EntitiesPerSecond: 100, PartitionEntitiesPerSecond: -1}
	if _, err := table.NewServiceWithSharedKey("http://127.0.0.1:1/devstoreaccount1", "devstoreaccount1", "a2V5", &table.Options{Rate: &ok}); err != nil {
		t.Errorf("a valid Rate: got %v", err)
	}
}
