package wire

import "unicode/utf8"

// The service (and Azurite, in JavaScript) orders strings by UTF-16 code
// units, not by code points or UTF-8 bytes: U+E000..U+FFFF sort after every
// supplementary character (U+10000 and up, written as surrogate pairs
// D800..DFFF). Go compares strings by UTF-8 bytes, which is code point order,
// so key order and prefix ranges go through rank. (Table names, compared
// by the service the same way, use PrefixEnd too.)
//
// rank maps a code point to its position in UTF-16 order:
//
//	U+0000..U+D7FF    -> 0x000000..0x00D7FF
//	U+10000..U+10FFFF -> 0x00D800..0x10D7FF (first unit D800..DBFF)
//	U+E000..U+FFFF    -> 0x10E000..0x10FFFF (a single unit E000..FFFF)
//
// Comparing two strings rank by rank gives the UTF-16 code unit order,
// because UTF-16 is prefix-free per code point and preserves this order.
func rank(r rune) rune {
	switch {
	case r < 0xD800:
		return r
	case r >= 0x10000:
		return 0xD800 + (r - 0x10000)
	default: // U+E000..U+FFFF (surrogates are not valid runes in Go strings)
		return r + 0x100000
	}
}

func unrank(k rune) rune {
	switch {
	case k < 0xD800:
		return k
	case k <= 0x10D7FF:
		return k - 0xD800 + 0x10000
	default:
		return k - 0x100000
	}
}

// CompareUTF16 compares a and b in UTF-16 code unit order: -1, 0 or +1.
func CompareUTF16(a, b string) int {
	if a == b {
		return 0
	}
	// Equal leading bytes are equal characters: skip them, back to the
	// start of the character they end in. Where both differing bytes are
	// ASCII, byte order is UTF-16 order.
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	if i < len(a) && i < len(b) && a[i] < utf8.RuneSelf && b[i] < utf8.RuneSelf {
		if a[i] < b[i] {
			return -1
		}
		return 1
	}
	for i > 0 && (i < len(a) && !utf8.RuneStart(a[i]) || i < len(b) && !utf8.RuneStart(b[i])) {
		i--
	}
	a, b = a[i:], b[i:]
	for a != "" && b != "" {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if ra != rb {
			if rank(ra) < rank(rb) {
				return -1
			}
			return 1
		}
		a, b = a[na:], b[nb:]
	}
	switch {
	case a == "" && b == "":
		return 0
	case a == "":
		return -1
	}
	return 1
}

// PrefixEnd returns the smallest string greater (in UTF-16 order) than every
// string that starts with prefix: prefix with trailing U+FFFF removed and its
// last character replaced by the next one in UTF-16 order. ok is false when
// there is none: prefix is empty or only U+FFFF. The successor of U+D7FF is
// U+10000 and of U+10FFFF is U+E000, skipping the surrogate range, so the
// result is always valid UTF-8.
func PrefixEnd(prefix string) (string, bool) {
	s := prefix
	for s != "" {
		r, n := utf8.DecodeLastRuneInString(s)
		s = s[:len(s)-n]
		if r == 0xFFFF {
			continue // nothing follows U+FFFF: carry into the previous character
		}
		k := rank(r) + 1
		if k > 0x10D7FF && k < 0x10E000 {
			k = 0x10E000 // after U+10FFFF comes U+E000
		}
		return s + string(unrank(k)), true
	}
	return "", false
}

// CompareRunes compares two characters in UTF-16 code unit order: -1, 0
// or +1.
func CompareRunes(a, b rune) int {
	ra, rb := rank(a), rank(b)
	switch {
	case ra < rb:
		return -1
	case ra > rb:
		return 1
	}
	return 0
}
