package wire

// Plain reports whether s is printable ASCII without '"' or '\\': valid
// UTF-8 with nothing for AppendString to escape, one UTF-16 code unit per
// byte. Most strings are; for them one pass over the bytes, eight at a
// time, replaces the UTF-8 check, the escaping and the UTF-16 count.
func Plain(s string) bool { return plainPrefix(s) == len(s) }

// PlainPrefix is the length of the longest plain prefix of s (see Plain):
// a caller that checks and counts the rest passes it on to
// AppendStringAfter rather than have the prefix scanned twice.
func PlainPrefix(s string) int { return plainPrefix(s) }

// plainPrefix returns the length of the longest prefix of s that is plain
// (see Plain), found 32 bytes at a time, then eight.
func plainPrefix(s string) int {
	i := 0
	// Four words a branch while all are plain: text fields are most of an
	// entity, and this scan is most of encoding one.
	for ; i+32 <= len(s); i += 32 {
		b := s[i : i+32]
		if notPlain(word(b[0:8]))|notPlain(word(b[8:16]))|notPlain(word(b[16:24]))|notPlain(word(b[24:32])) != 0 {
			break
		}
	}
	for ; i+8 <= len(s); i += 8 {
		if notPlain(word(s[i:i+8])) != 0 {
			break // the first bad byte is in this word
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x80 || c == '"' || c == '\\' {
			return i
		}
	}
	return i
}

// word reads the first eight bytes of b, little-endian.
func word(b string) uint64 {
	_ = b[7] // one bounds check
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// notPlain is non-zero when a byte of w is >= 0x80, < 0x20, '"' or '\\':
// the usual word tricks, exact in telling whether any byte is one. The
// usual "&^ w" of each test is left out: it only clears the high bit of a
// byte >= 0x80, which w itself sets in the result anyway; and a borrow
// carries into the next byte only from a byte that is not plain either.
func notPlain(w uint64) uint64 {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
	)
	quote, bslash := w^(ones*'"'), w^(ones*'\\')
	return (w | (w - ones*0x20) | (quote - ones) | (bslash - ones)) & highs
}
