package wire

import "unicode/utf8"

// hexDigits serves the \u00XX escapes of AppendString.
const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string, as tablekit writes every
// string it sends: quotes, backslashes and control characters escaped,
// U+2028 and U+2029 escaped, invalid UTF-8 replaced by U+FFFD (callers
// that must not lose data check utf8.ValidString first).
func AppendString(b []byte, s string) []byte {
	return AppendStringAfter(b, s, plainPrefix(s))
}

// AppendStringAfter is AppendString for a string whose first plain bytes
// (PlainPrefix(s), or any count up to it) are known to need no escape.
func AppendStringAfter(b []byte, s string, plain int) []byte {
	b = append(b, '"')
	// Most strings are plain throughout, or for a long stretch: skip that
	// a word at a time; it is copied with the rest.
	start := 0
	for i := plain; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		// U+2028 and U+2029 are valid JSON but break JavaScript consumers.
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// AppendMember appends a property's member name after a comma:
// `,"name":`, preceded by `,"name@odata.type":"anno"` when anno (an EDM
// type name such as "Edm.Int64") is not "".
func AppendMember(b []byte, name, anno string) []byte {
	b = append(b, ',')
	if anno != "" {
		b = AppendString(b, name)
		b = append(b[:len(b)-1], `@odata.type":"`...)
		b = append(b, anno...)
		b = append(b, `",`...)
	}
	b = AppendString(b, name)
	return append(b, ':')
}
