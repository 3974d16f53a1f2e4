package wire

import (
	"strconv"
	"unicode/utf8"
)

// MaxKeyUTF16 is the service's 1 KiB limit on a PartitionKey or RowKey,
// counted in UTF-16 code units as the service stores strings.
const MaxKeyUTF16 = 1024

// Rules broken by keys and strings.
const (
	RuleKeyTooLong   = "key longer than 1 KiB"
	RuleKeyCharacter = `key contains / \ # ? or a control character`
	RuleInvalidUTF8  = "string is not valid UTF-8"
)

// CheckKey applies the service's rules for a PartitionKey or RowKey value:
// valid UTF-8, at most MaxKeyUTF16 code units, and none of / \ # ? or a
// control character (C0, DEL or C1). It returns nil when v is a legal key;
// the empty key is legal.
func CheckKey(v string) *Violation {
	if !utf8.ValidString(v) {
		return &Violation{Rule: RuleInvalidUTF8}
	}
	if n := UTF16Len(v); n > MaxKeyUTF16 {
		return &Violation{Rule: RuleKeyTooLong, Detail: strconv.Itoa(n) + " UTF-16 code units"}
	}
	for i, r := range v {
		if r == '/' || r == '\\' || r == '#' || r == '?' || r < 0x20 || (r >= 0x7f && r <= 0x9f) {
			return &Violation{Rule: RuleKeyCharacter, Detail: "at byte " + strconv.Itoa(i)}
		}
	}
	return nil
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
