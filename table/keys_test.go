package table

import (
	"errors"
	"testing"
	"time"

	"github.com/tablekit/tablekit"
)

func TestReverseTicks(t *testing.T) {
	tests := []struct {
		t    time.Time
		want string
	}{
		// DateTime(2024,1,1).Ticks = 638396640000000000 in .NET.
		{time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), "2516982335999999999"},
		{time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC), "2534023007999999999"},
		{time.Date(9999, 12, 31, 23, 59, 59, 999999900, time.UTC), "0000000000000000000"},
		{time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC), "3155378975999999999"},
		{time.Date(2024, 1, 1, 1, 0, 0, 0, time.FixedZone("", 3600)), "2516982335999999999"},
	}
	for _, tc := range tests {
		if got := ReverseTicks(tc.t); got != tc.want {
			t.Errorf("ReverseTicks(%v) = %s, want %s", tc.t, got, tc.want)
		}
		back, err := TimeFromReverseTicks(tc.want)
		if err != nil || !back.Equal(tc.t) {
			t.Errorf("TimeFromReverseTicks(%s) = %v, %v; want %v", tc.want, back, err, tc.t)
		}
	}
	older, newer := time.Now(), time.Now().Add(time.Microsecond)
	if !(ReverseTicks(newer) < ReverseTicks(older)) {
		t.Errorf("newer time does not sort first")
	}
	for _, bad := range []string{"", "123", "abcdefghijklmnopqrs", "9999999999999999999"} {
		if _, err := TimeFromReverseTicks(bad); !errors.Is(err, tablekit.ErrInvalid) {
			t.Errorf("TimeFromReverseTicks(%q) err = %v", bad, err)
		}
	}
}

func TestPadUint(t *testing.T) {
	tests := []struct {
		n     uint64
		width int
		want  string
	}{{123, 8, "00000123"}, {0, 3, "000"}, {12345, 3, "12345"}, {7, 0, "7"}}
	for _, tc := range tests {
		if got := PadUint(tc.n, tc.width); got != tc.want {
			t.Errorf("PadUint(%d, %d) = %q, want %q", tc.n, tc.width, got, tc.want)
		}
	}
	if !(PadUint(9, 4) < PadUint(10, 4)) {
		t.Errorf("padded keys do not sort numerically")
	}
}

func TestShard(t *testing.T) {
	// FNV-1a 32 of "hello" is 0x4f9f2cab; 0x4f9f2cab % 16 = 11.
	if got := Shard("hello", 16); got != "11" {
		t.Errorf("Shard(hello, 16) = %q, want 11", got)
	}
	if got := Shard("anything", 1); got != "" {
		t.Errorf("Shard(_, 1) = %q, want empty", got)
	}
	prefixes := ShardPrefixes(12)
	if len(prefixes) != 12 || prefixes[0] != "00" || prefixes[11] != "11" {
		t.Errorf("ShardPrefixes(12) = %v", prefixes)
	}
	seen := map[string]int{}
	for i := 0; i < 1600; i++ {
		seen[Shard(PadUint(uint64(i), 6), 16)]++
	}
	if len(seen) != 16 {
		t.Errorf("1600 keys hit %d of 16 shards", len(seen))
	}
	for s, n := range seen {
		if n < 50 {
			t.Errorf("shard %s got %d of 1600 keys: badly spread", s, n)
		}
	}
}
