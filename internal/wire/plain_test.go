package wire

import (
	"strings"
	"testing"
)

// TestPlain: every byte value at every position of a word and of the tail
// is judged as the byte-at-a-time rule judges it.
func TestPlain(t *testing.T) {
	slow := func(s string) bool {
		for i := 0; i < len(s); i++ {
			if c := s[i]; c < 0x20 || c >= 0x80 || c == '"' || c == '\\' {
				return false
			}
		}
		return true
	}
	for _, n := range []int{0, 1, 7, 8, 9, 16, 23} {
		for pos := range n {
			for c := range 256 {
				b := []byte(strings.Repeat("a", n))
				b[pos] = byte(c)
				s := string(b)
				if got, want := Plain(s), slow(s); got != want {
					t.Fatalf("Plain(%q) = %v, want %v", s, got, want)
				}
			}
		}
	}
	for _, s := range []string{"", "plain text, 100% ASCII ~!@#$%^&*()", "ü", "a\u2028b", "tab\there"} {
		if got, want := Plain(s), slow(s); got != want {
			t.Errorf("Plain(%q) = %v, want %v", s, got, want)
		}
	}
}

// FuzzPlain: Plain agrees with the byte-at-a-time rule, and a plain string
// is written by AppendString as it is, between quotes.
func FuzzPlain(f *testing.F) {
	f.Add("order ships with tracked courier")
	f.Add("a\"b\\c\x00\x7f\x80")
	f.Fuzz(func(t *testing.T, s string) {
		want := true
		for i := 0; i < len(s); i++ {
			if c := s[i]; c < 0x20 || c >= 0x80 || c == '"' || c == '\\' {
				want = false
			}
		}
		if got := Plain(s); got != want {
			t.Fatalf("Plain(%q) = %v, want %v", s, got, want)
		}
		if want {
			if got := string(AppendString(nil, s)); got != `"`+s+`"` {
				t.Fatalf("AppendString(%q) = %s, want it quoted as it is", s, got)
			}
		}
	})
}

func BenchmarkPlain(b *testing.B) {
	s := strings.Repeat("order ships with tracked courier ", 20)
	b.SetBytes(int64(len(s)))
	b.Run("Plain", func(b *testing.B) {
		for b.Loop() {
			if !Plain(s) {
				b.Fatal("not plain")
			}
		}
	})
	b.Run("checks", func(b *testing.B) {
		var buf []byte
		for b.Loop() {
			buf = AppendString(buf[:0], s)
			_ = UTF16Len(s)
		}
	})
}
