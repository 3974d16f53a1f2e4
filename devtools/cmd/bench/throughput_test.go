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

// TestHalfTarget: a cap of R/2 is judged on the whole run's rate, within
// 5%, and not at all on a busy machine.
func TestHalfTarget(t *testing.T) {
	tests := []struct {
		name string
		wall time.Duration
		load float64
		want Status
	}{
		{"kept", 50260 * time.Millisecond, 0.3, Pass},
		{"a slow start", 53400 * time.Millisecond, 0.3, Fail},
		{"too fast", 45 * time.Second, 0.3, Fail},
		{"busy machine", 50 * time.Second, 7, NotMeasured},
	}
	for _, tt := range tests {
		b := busyBench(tt.load, map[string][]sample{
			"thr/copy-half": {{n: 50000, wall: tt.wall, sys: -1, srv: -1}},
		})
		b.writeRate = map[string][]float64{"thr/copy-half": {1000}}
		b.throttled = map[string][]float64{"thr/copy-half": {0}}
		ts := b.throughputTargets()
		if len(ts) != 1 {
			t.Fatalf("%s: got %d targets, want the copy's one: %+v", tt.name, len(ts), ts)
		}
		if got := ts[0].Status; got != tt.want {
			t.Errorf("%s: got %v, want %v (%+v)", tt.name, got, tt.want, ts[0])
		}
		if tt.want == Fail && ts[0].Why == "" {
			t.Errorf("%s: a miss with no reason", tt.name)
		}
	}
}
