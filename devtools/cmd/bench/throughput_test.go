package main

import (
	"math"
	"testing"
	"time"

	"github.com/tablekit/tablekit/devtools/faults"
)

func TestAcceptedRate(t *testing.T) {
	s := time.Second
	tests := []struct {
		name string
		arr  []faults.Arrival
		want float64
	}{
		{"none", nil, math.NaN()},
		{"one", []faults.Arrival{{At: 0, Entities: 100}}, math.NaN()},
		{"steady", []faults.Arrival{{At: 0, Entities: 100}, {At: s / 10, Entities: 100}, {At: s / 5, Entities: 100}}, 1000},
		{"late start, throttled left out", []faults.Arrival{{At: 3 * s, Entities: 100, Throttled: true}, {At: 4 * s, Entities: 50}, {At: 5 * s, Entities: 100, Throttled: true}, {At: 6 * s, Entities: 400}}, 200},
	}
	for _, tt := range tests {
		got := acceptedRate(tt.arr)
		if got != tt.want && !(math.IsNaN(got) && math.IsNaN(tt.want)) {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
}
