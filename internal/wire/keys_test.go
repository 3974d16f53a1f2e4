package wire

import (
	"strings"
	"testing"
)

func TestCheckKey(t *testing.T) {
	tests := []struct {
		name, key, want string
	}{
		{"empty", "", ""},
		{"quotes and unicode", "O'Brien \"q\" ü 😀", ""},
		{"long: the backend's to check", strings.Repeat("k", 4096), ""},
		{"slash", "a/b", RuleKeyCharacter},
		{"backslash", `a\b`, RuleKeyCharacter},
		{"hash", "a#b", RuleKeyCharacter},
		{"question mark", "a?b", RuleKeyCharacter},
		{"tab", "a\tb", RuleKeyCharacter},
		{"DEL", "a\x7fb", RuleKeyCharacter},
		{"C1 control", "a\u0085b", RuleKeyCharacter},
		{"invalid UTF-8", "\xff", RuleInvalidUTF8},
	}
	for _, tt := range tests {
		if got := ruleOf(CheckKey(tt.key)); got != tt.want {
			t.Errorf("%s: CheckKey = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// ruleOf is the rule v names, "" for none.
func ruleOf(v *Violation) string {
	if v == nil {
		return ""
	}
	return v.Rule
}

func TestUTF16Len(t *testing.T) {
	tests := []struct {
		s    string
		want int
	}{
		{"", 0}, {"abc", 3}, {"ü", 1}, {"日本", 2}, {"😀", 2}, {"\xff", 1},
	}
	for _, tt := range tests {
		if got := UTF16Len(tt.s); got != tt.want {
			t.Errorf("UTF16Len(%q) = %d, want %d", tt.s, got, tt.want)
		}
	}
}

// TestPlainKey: PlainKey holds exactly for the keys that CheckKey passes
// and Plain calls plain, for every byte at every place of short keys.
func TestPlainKey(t *testing.T) {
	for _, n := range []int{1, 2, 9, 33} {
		for pos := range n {
			for c := range 256 {
				b := []byte(strings.Repeat("k", n))
				b[pos] = byte(c)
				s := string(b)
				want := CheckKey(s) == nil && Plain(s)
				if got := PlainKey(s); got != want {
					t.Fatalf("PlainKey(%q) = %v, want %v", s, got, want)
				}
			}
		}
	}
	if !PlainKey("") {
		t.Errorf("PlainKey(\"\") = false, want true (the empty key's rule is the caller's)")
	}
}
