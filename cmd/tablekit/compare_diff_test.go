package main

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/tablekit/tablekit/table"
)

func TestDiffProps(t *testing.T) {
	ts := time.Date(2024, 5, 1, 10, 0, 0, 1200, time.UTC)
	tests := []struct {
		name  string
		a, b  map[string]any
		want  []string // the differing names
		typed int      // how many of them changed type
	}{
		{"equal", map[string]any{"S": "x", "N": int32(1), "B": []byte{1}, "T": ts}, map[string]any{"S": "x", "N": int32(1), "B": []byte{1}, "T": ts.In(time.FixedZone("x", 3600))}, nil, 0},
		{"NaN equals NaN", map[string]any{"D": math.NaN()}, map[string]any{"D": math.Float64frombits(0x7ff8000000000001)}, nil, 0},
		{"NaN against a number", map[string]any{"D": math.NaN()}, map[string]any{"D": 1.0}, []string{"D"}, 0},
		{"negative zero", map[string]any{"D": math.Copysign(0, -1)}, map[string]any{"D": 0.0}, []string{"D"}, 0},
		{"Int32 vs Int64", map[string]any{"N": int32(5)}, map[string]any{"N": int64(5)}, []string{"N"}, 1},
		{"Int32 vs Double", map[string]any{"N": int32(1)}, map[string]any{"N": 1.0}, []string{"N"}, 1},
		{"value", map[string]any{"S": "x"}, map[string]any{"S": "y"}, []string{"S"}, 0},
		{"absent on each side", map[string]any{"A": "x"}, map[string]any{"B": "x"}, []string{"A", "B"}, 0},
		{"binary", map[string]any{"B": []byte{1}}, map[string]any{"B": []byte{2}}, []string{"B"}, 0},
		{"GUID vs string", map[string]any{"G": table.GUID{1}}, map[string]any{"G": table.GUID{1}.String()}, []string{"G"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ds := diffProps(tt.a, tt.b)
			var got []string
			typed := 0
			for _, d := range ds {
				got = append(got, d.name)
				if d.typeChanged() {
					typed++
				}
				if s := d.String(); !strings.HasPrefix(s, d.name+": ") {
					t.Errorf("String() = %q", s)
				}
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") || typed != tt.typed {
				t.Errorf("got %v (%d typed), want %v (%d typed)", got, typed, tt.want, tt.typed)
			}
		})
	}
}
