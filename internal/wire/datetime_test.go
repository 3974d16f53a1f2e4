package wire

import (
	"math/rand/v2"
	"testing"
	"time"
)

// AppendDateTime writes what time.Format(DateTimeLayout) writes, over
// Edm.DateTime's whole range and in any zone.
func TestAppendDateTime(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	times := []time.Time{
		time.Date(1601, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(2024, 2, 29, 12, 0, 0, 50, time.FixedZone("Y", -5*3600)),
	}
	for range 1000 {
		// Seconds across the whole range, any nanosecond within a second.
		sec := r.Int64N(253402300799-(-11644473600)) + (-11644473600)
		times = append(times, time.Unix(sec, r.Int64N(1e9)))
	}
	for _, tm := range times {
		want := tm.UTC().Format(DateTimeLayout)
		if got := string(AppendDateTime(nil, tm)); got != want {
			t.Errorf("AppendDateTime(%v) = %s, want %s", tm, got, want)
		}
	}
}
