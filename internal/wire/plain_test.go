package wire

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// plainBytewise is the plain-prefix rule a byte at a time.
func plainBytewise(s string) int {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x80 || c == '"' || c == '\\' {
			return i
		}
	}
	return len(s)
}

// appendStringSpec is AppendString's rule a rune at a time: what a JSON
// string must escape, U+2028 and U+2029 escaped, an invalid byte written
// as \ufffd; everything else as it is.
func appendStringSpec(b []byte, s string) []byte {
	b = append(b, '"')
	for len(s) > 0 {
		r, size := utf8.DecodeRuneInString(s)
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, `\ufffd`...)
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case r == '\n':
			b = append(b, `\n`...)
		case r == '\r':
			b = append(b, `\r`...)
		case r == '\t':
			b = append(b, `\t`...)
		case r < 0x20, r == '\u2028', r == '\u2029':
			b = fmt.Appendf(b, `\u%04x`, r)
		default:
			b = append(b, s[:size]...)
		}
		s = s[size:]
	}
	return append(b, '"')
}

// TestPlain: every byte value at every position of a word and of the tail
// is judged as the byte-at-a-time rule judges it, and AppendString, which
// skips the plain prefix, writes what the rune-at-a-time rule writes.
func TestPlain(t *testing.T) {
	slow := func(s string) bool { return plainBytewise(s) == len(s) }
	for _, n := range []int{0, 1, 7, 8, 9, 16, 23, 32, 33, 41, 64, 71} { // each loop of plainPrefix, and after it
		for pos := range n {
			for c := range 256 {
				b := []byte(strings.Repeat("a", n))
				b[pos] = byte(c)
				s := string(b)
				if got, want := Plain(s), slow(s); got != want {
					t.Fatalf("Plain(%q) = %v, want %v", s, got, want)
				}
				if got, want := plainPrefix(s), plainBytewise(s); got != want {
					t.Fatalf("plainPrefix(%q) = %d, want %d", s, got, want)
				}
				if got, want := string(AppendString(nil, s)), string(appendStringSpec(nil, s)); got != want {
					t.Fatalf("AppendString(%q) = %s, want %s", s, got, want)
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

// FuzzPlain: Plain and plainPrefix agree with the byte-at-a-time rule, a
// plain string is written by AppendString as it is, between quotes, and
// any string as the rune-at-a-time rule writes it.
func FuzzPlain(f *testing.F) {
	f.Add("order ships with tracked courier")
	f.Add("a\"b\\c\x00\x7f\x80")
	f.Add("twelve bytes then \u2028 and \xff, then plain again")
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
		if got, want := plainPrefix(s), plainBytewise(s); got != want {
			t.Fatalf("plainPrefix(%q) = %d, want %d", s, got, want)
		}
		if got, want := string(AppendString(nil, s)), string(appendStringSpec(nil, s)); got != want {
			t.Fatalf("AppendString(%q) = %s, want %s", s, got, want)
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

// TestNotPlainPairs: the word test agrees with the byte rule for every two
// adjacent byte values at every place in a word of plain bytes, so a
// borrow or a high byte is never read as a verdict on its neighbour.
func TestNotPlainPairs(t *testing.T) {
	bad := func(c byte) bool { return c < 0x20 || c >= 0x80 || c == '"' || c == '\\' }
	for a := range 256 {
		for b := range 256 {
			for pos := range 7 {
				w := []byte("xxxxxxxx")
				w[pos], w[pos+1] = byte(a), byte(b)
				got, want := notPlain(word(string(w))) != 0, bad(byte(a)) || bad(byte(b))
				if got != want {
					t.Fatalf("%q: got %v, want %v", w, got, want)
				}
			}
		}
	}
}
