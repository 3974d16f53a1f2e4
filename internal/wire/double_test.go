package wire

import (
	"math"
	"testing"
)

func TestAppendDouble(t *testing.T) {
	tests := []struct {
		x    float64
		bits int
		want string
	}{
		{1, 64, "1"},
		{-2.5, 64, "-2.5"},
		{math.Copysign(0, -1), 64, "-0"},
		{math.MaxFloat64, 64, "1.7976931348623157e+308"},
		{float64(float32(0.1)), 32, "0.1"},
		{math.NaN(), 64, `"NaN"`},
		{math.Inf(1), 64, `"Infinity"`},
		{math.Inf(-1), 32, `"-Infinity"`},
	}
	for _, tt := range tests {
		if got := string(AppendDouble([]byte("x"), tt.x, tt.bits)); got != "x"+tt.want {
			t.Errorf("AppendDouble(%v, %d) = %s, want x%s", tt.x, tt.bits, got, tt.want)
		}
	}
}

func TestParseDouble(t *testing.T) {
	tests := []struct {
		in     string
		want   float64 // NaN stands for NaN
		ok     bool
		plain  bool // DoubleSpecial refuses it
		remark string
	}{
		{"NaN", math.NaN(), true, false, "Node, .NET, Python"},
		{"Infinity", math.Inf(1), true, false, ""},
		{"-Infinity", math.Inf(-1), true, false, ""},
		{"INF", math.Inf(1), true, false, "OData"},
		{"-INF", math.Inf(-1), true, false, ""},
		{"1.5", 1.5, true, true, ""},
		{"-0", math.Copysign(0, -1), true, true, ""},
		{"1e3", 1000, true, true, ""},
		{"2E-2", 0.02, true, true, ""},
		{"1.7976931348623157e308", math.MaxFloat64, true, true, ""},
		{"1e400", 0, false, true, "overflows float64"},
		{"nan", 0, false, true, "case matters"},
		{"inf", 0, false, true, ""},
		{"+Infinity", 0, false, true, ""},
		{"+1", 0, false, true, "not JSON"},
		{"01", 0, false, true, ""},
		{".5", 0, false, true, ""},
		{"1.", 0, false, true, ""},
		{"0x10", 0, false, true, ""},
		{"1_000", 0, false, true, ""},
		{"", 0, false, true, ""},
		{" 1", 0, false, true, ""},
	}
	for _, tt := range tests {
		got, ok := ParseDouble(tt.in)
		same := got == tt.want || (math.IsNaN(got) && math.IsNaN(tt.want))
		if ok != tt.ok || (ok && (!same || math.Signbit(got) != math.Signbit(tt.want))) {
			t.Errorf("ParseDouble(%q) = %v, %v; want %v, %v %s", tt.in, got, ok, tt.want, tt.ok, tt.remark)
		}
		if _, special := DoubleSpecial(tt.in); special == tt.plain {
			t.Errorf("DoubleSpecial(%q) = %v, want %v", tt.in, special, !tt.plain)
		}
	}
}
