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

// TestParseServiceTime: every time the fast path reads, time.Parse reads
// to the same instant; what it leaves (ok false) includes every form it
// must not read. Dates at month ends and leap days, every fraction length.
func TestParseServiceTime(t *testing.T) {
	tests := []struct {
		in string
		ok bool
	}{
		{"2024-03-01T08:00:00Z", true},
		{"2024-03-01T08:00:00.1Z", true},
		{"2024-03-01T08:00:00.1234567Z", true},
		{"2024-03-01T08:00:00.123456789Z", true},
		{"2024-02-29T23:59:59.9999999Z", true},
		{"2000-02-29T00:00:00Z", true},
		{"1601-01-01T00:00:00Z", true},
		{"9999-12-31T23:59:59.9999999Z", true},
		{"2023-02-29T00:00:00Z", false},
		{"1900-02-29T00:00:00Z", false},
		{"2024-04-31T00:00:00Z", false},
		{"2024-13-01T00:00:00Z", false},
		{"2024-00-01T00:00:00Z", false},
		{"2024-01-00T00:00:00Z", false},
		{"2024-01-01T24:00:00Z", false},
		{"2024-01-01T00:60:00Z", false},
		{"2024-01-01T00:00:60Z", false},
		{"2024-01-01T00:00:00.Z", false},
		{"2024-01-01T00:00:00.1234567890Z", false},
		{"2024-01-01T00:00:00+01:00", false},
		{"2024-01-01T00:00:00", false},
		{"2024-01-01 00:00:00Z", false},
		{"2024-1-01T00:00:00.00Z", false},
		{"+024-01-01T00:00:00Z", false},
		{"2024-01-01T00:00:0aZ", false},
	}
	for _, tc := range tests {
		got, ok := ParseServiceTime(tc.in)
		if ok != tc.ok {
			t.Errorf("ParseServiceTime(%q) ok = %v, want %v", tc.in, ok, tc.ok)
			continue
		}
		if !ok {
			continue
		}
		want, err := time.Parse(time.RFC3339Nano, tc.in)
		if err != nil || !got.Equal(want) || got.Location() != time.UTC {
			t.Errorf("ParseServiceTime(%q) = %v, want %v (%v)", tc.in, got, want, err)
		}
	}
	// Every day of a leap and a common year, as time.Parse reads them.
	for _, year := range []int{2023, 2024} {
		for d := time.Date(year, 1, 1, 0, 0, 0, 0, time.UTC); d.Year() == year; d = d.AddDate(0, 0, 1) {
			in := d.Format("2006-01-02T15:04:05.0000000Z")
			if got, ok := ParseServiceTime(in); !ok || !got.Equal(d) {
				t.Errorf("ParseServiceTime(%q) = %v, %v; want %v", in, got, ok, d)
			}
		}
	}
}
