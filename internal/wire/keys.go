package wire

import (
	"strconv"
	"unicode/utf8"
)

// Rules broken by keys and strings.
const (
	RuleKeyCharacter = `key contains / \ # ? or a control character`
	RuleInvalidUTF8  = "string is not valid UTF-8"
)

// CheckKey applies the rules every backend has for a PartitionKey or
// RowKey value: valid UTF-8, and none of / \ # ? or a control character
// (C0, DEL or C1). It returns nil when v is a legal key; the empty key is
// legal. How long a key may be is the backend's (internal/backend).
func CheckKey(v string) *Violation {
	if !utf8.ValidString(v) {
		return &Violation{Rule: RuleInvalidUTF8}
	}
	for i, r := range v {
		if r == '/' || r == '\\' || r == '#' || r == '?' || r < 0x20 || (r >= 0x7f && r <= 0x9f) {
			return &Violation{Rule: RuleKeyCharacter, Detail: "at byte " + strconv.Itoa(i)}
		}
	}
	return nil
}

// PlainKey reports whether v is a legal key (CheckKey) that is also plain
// (Plain): printable ASCII without '"', '\\', '/', '#' or '?'. Most keys
// are; for them one pass replaces the UTF-8 check, the character rules,
// the escaping and the UTF-16 count (one unit a byte).
func PlainKey(v string) bool {
	if !Plain(v) {
		return false
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; c == '/' || c == '#' || c == '?' || c == 0x7f {
			return false
		}
	}
	return true
}

// UTF16Len counts UTF-16 code units, the unit of the service's limits on
// keys and strings. Invalid bytes count one each.
func UTF16Len(s string) int {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			n++
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
		i += size
	}
	return n
}
