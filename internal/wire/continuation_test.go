package wire

import "testing"

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
