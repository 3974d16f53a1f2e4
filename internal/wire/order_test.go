package wire

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf16"
)

// TestCompareUTF16: the order is that of the strings' UTF-16 code units
// (the service's), where U+E000-U+FFFF sort after supplementary characters;
// byte order would differ there.
func TestCompareUTF16(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"a", "", 1},
		{"", "a", -1},
		{"abc", "abd", -1},
		{"abd", "abc", 1},
		{"ab", "abc", -1},
		{"p01\x00", "p01", 1},
		{"é", "z", 1},                        // U+00E9 > U+007A
		{"x\uFFFD", "x\U0001F600", 1},        // BMP above the surrogates sorts after a supplementary
		{"x\U0001F600", "x\uE000", -1},       // likewise, against U+E000
		{"x\uD7FF", "x\U0001F600", -1},       // below the surrogates sorts first, as in bytes
		{"aé1", "aé2", -1},                   // a common prefix ending in a two-byte character
		{"a\U0001F600b", "a\U0001F601a", -1}, // differing in a continuation byte
	}
	for _, tc := range tests {
		if got := CompareUTF16(tc.a, tc.b); got != tc.want {
			t.Errorf("CompareUTF16(%q, %q): got %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestCompareUTF16Random checks the order against the UTF-16 encodings
// compared unit by unit, on random strings that share prefixes and mix
// one- to four-byte characters.
func TestCompareUTF16Random(t *testing.T) {
	alphabet := []rune{'a', 'b', 'z', 0x7F, 0xE9, 0x7FF, 0x800, 0xD7FF, 0xE000, 0xFFFD, 0xFFFF, 0x10000, 0x1F600, 0x10FFFF}
	r := rand.New(rand.NewPCG(1, 2))
	word := func() string {
		var b strings.Builder
		for range r.IntN(5) {
			b.WriteRune(alphabet[r.IntN(len(alphabet))])
		}
		return b.String()
	}
	for range 20000 {
		p := word()
		a, b := p+word(), p+word()
		want := slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b)))
		if got := CompareUTF16(a, b); got != want {
			t.Fatalf("CompareUTF16(%q, %q): got %d, want %d", a, b, got, want)
		}
	}
}
