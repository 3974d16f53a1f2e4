package wire

import (
	"errors"
	"testing"
)

func TestParseContinuation(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"1!8!U21pdGg-", "Smith", true},
		{"1!12!QmVuMTg5OA--", "Ben1898", true},
		{"1!8!QmVuOTk5", "Ben999", true},
		{"1!20!cGFydGl0aW9uX2tleV8x", "partition_key_1", true},
		{"U21pdGg=", "Smith", true},            // Azurite
		{"w6k=", "é", true},                    // Azurite, non-ASCII
		{"1!4!w6k-", "é", true},                // the service's form of the same
		{"1!8!U21pdGg", "", false},             // cut short: the length disagrees
		{"U21pdGg", "Smith", true},             // Azurite: padding is optional
		{"U21pdGg==", "Smith", true},           // Azurite: padding is optional
		{"U21pd", "", false},                   // cut short: no base64 has 4n+1 characters
		{"1!x!U21pdGg-", "", false},            // no length
		{"2!8!U21pdGg-", "", false},            // unknown version
		{"1!8!U21p!Gg-", "", false},            // a character outside base64
		{"U2*pdGg=", "", false},                // a character outside base64
		{"/w==", "", false},                    // not UTF-8
		{"", "", true},                         // the empty key
		{"\x00<garbled reply>\x00", "", false}, // garbage
	}
	for _, tc := range tests {
		got, err := ParseContinuation(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseContinuation(%q): got %q, %v; want %q, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

// A versioned form other than 1 is a form this package does not know, told
// apart from a garbled value so that callers follow it unchecked.
func TestParseContinuationVersion(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{{"2!8!U21pdGg-", true}, {"10!x", true}, {"1!8!U21pdGg", false}, {"!8!U21pdGg-", false}, {"a!8!x", false}, {"\x00<garbled>", false}} {
		_, err := ParseContinuation(tc.in)
		if got := errors.Is(err, ErrContinuationVersion); got != tc.want {
			t.Errorf("ParseContinuation(%q): got %v, want ErrContinuationVersion %v", tc.in, err, tc.want)
		}
	}
}
