package wire

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxDepth is encoding/json's nesting limit; deeper input is an error, not
// a stack overflow.
const MaxDepth = 10000

// SyntaxError is malformed JSON at a byte offset.
type SyntaxError struct {
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string {
	return "invalid JSON at byte " + strconv.Itoa(e.Offset) + ": " + e.Msg
}

// Scanner reads JSON text one value at a time. Entity bodies are decoded
// (codec) and measured as encoding/json would re-encode them (txwire) on
// every read and write, which is why both use this hand-written scanner
// instead of encoding/json's reflection. It decodes strings exactly as
// json.Unmarshal does (each invalid byte and each lone surrogate becomes
// U+FFFD) and never panics on malformed input.
type Scanner struct {
	Data  []byte
	Pos   int
	depth int
	buf   []byte // String's scratch space for unescaped strings
}

// Reset makes s scan data from its start, keeping the scratch space that
// String unescapes into, so one Scanner reused for many entities (out of a
// pool) does not grow a new one for each.
func (s *Scanner) Reset(data []byte) { s.Data, s.Pos, s.depth = data, 0, 0 }

func (s *Scanner) fail(msg string) error { return &SyntaxError{Offset: s.Pos, Msg: msg} }

// Peek skips whitespace and returns the next byte, 0 at the end. It is
// called several times for each member; the service writes no whitespace,
// so the next byte is checked here, small enough to inline, before any
// loop.
func (s *Scanner) Peek() byte {
	if s.Pos < len(s.Data) && s.Data[s.Pos] > ' ' {
		return s.Data[s.Pos]
	}
	return s.skipSpace()
}

// skipSpace is Peek past whitespace.
func (s *Scanner) skipSpace() byte {
	for s.Pos < len(s.Data) {
		switch c := s.Data[s.Pos]; c {
		case ' ', '\t', '\n', '\r':
			s.Pos++
		default:
			return c
		}
	}
	return 0
}

// End reports an error unless only whitespace is left.
func (s *Scanner) End() error {
	if s.Peek(); s.Pos != len(s.Data) {
		return s.fail("data after the value")
	}
	return nil
}

// Object reads an object, calling member for each name with the scanner
// at the member's value, which member must read. name is valid only until
// the next String call. An error from member is returned as it is.
func (s *Scanner) Object(member func(name []byte) error) error {
	return s.container('{', '}', func() error {
		if s.Peek() != '"' {
			return s.fail("want a name")
		}
		name, err := s.String()
		if err != nil {
			return err
		}
		if err := s.colon(); err != nil {
			return err
		}
		return member(name)
	})
}

// colon reads the ':' after a member's name and checks that a value
// follows.
func (s *Scanner) colon() error {
	if s.Peek() != ':' {
		return s.fail("want :")
	}
	s.Pos++
	if s.Peek() == 0 {
		return s.fail("want a value")
	}
	return nil
}

// Array reads an array, calling elem with the scanner at each element,
// which elem must read.
func (s *Scanner) Array(elem func() error) error { return s.container('[', ']', elem) }

// container reads open, items separated by commas, and end.
func (s *Scanner) container(open, end byte, item func() error) error {
	if s.Peek() != open {
		return s.fail("want " + string(open))
	}
	if s.depth++; s.depth > MaxDepth {
		return s.fail("nesting too deep")
	}
	defer func() { s.depth-- }()
	s.Pos++
	if s.Peek() == end {
		s.Pos++
		return nil
	}
	for {
		if err := item(); err != nil {
			return err
		}
		switch s.Peek() {
		case ',':
			s.Pos++
		case end:
			s.Pos++
			return nil
		case 0:
			return s.fail("unterminated value")
		default:
			return s.fail("want , or " + string(end))
		}
	}
}

// Skip reads any value and checks its syntax.
func (s *Scanner) Skip() error {
	switch c := s.Peek(); {
	case c == '{':
		return s.container('{', '}', s.skipMember)
	case c == '[':
		return s.Array(s.Skip)
	case c == '"':
		return s.skipString()
	case c == '-' || (c >= '0' && c <= '9'):
		_, err := s.Number()
		return err
	}
	_, err := s.Literal()
	return err
}

// skipMember is Object's member reading for Skip: the name is skipped,
// not read.
func (s *Scanner) skipMember() error {
	if s.Peek() != '"' {
		return s.fail("want a name")
	}
	if err := s.skipString(); err != nil {
		return err
	}
	if err := s.colon(); err != nil {
		return err
	}
	return s.Skip()
}

// Literal reads true, false or null and returns its first byte.
func (s *Scanner) Literal() (byte, error) {
	var lit string
	switch s.Peek() {
	case 't':
		lit = "true"
	case 'f':
		lit = "false"
	case 'n':
		lit = "null"
	case 0:
		return 0, s.fail("want a value")
	default:
		return 0, s.fail("unexpected character")
	}
	if len(s.Data)-s.Pos < len(lit) || string(s.Data[s.Pos:s.Pos+len(lit)]) != lit {
		return 0, s.fail("bad literal")
	}
	s.Pos += len(lit)
	return lit[0], nil
}

// Number reads a number by JSON's grammar and returns its text.
func (s *Scanner) Number() ([]byte, error) {
	s.Peek()
	start := s.Pos
	if s.Pos < len(s.Data) && s.Data[s.Pos] == '-' {
		s.Pos++
	}
	digits := func() int {
		n := 0
		for s.Pos < len(s.Data) && s.Data[s.Pos] >= '0' && s.Data[s.Pos] <= '9' {
			s.Pos++
			n++
		}
		return n
	}
	if s.Pos < len(s.Data) && s.Data[s.Pos] == '0' {
		s.Pos++
	} else if digits() == 0 {
		return nil, s.fail("bad number")
	}
	if s.Pos < len(s.Data) && s.Data[s.Pos] == '.' {
		s.Pos++
		if digits() == 0 {
			return nil, s.fail("bad number")
		}
	}
	if s.Pos < len(s.Data) && (s.Data[s.Pos] == 'e' || s.Data[s.Pos] == 'E') {
		s.Pos++
		if s.Pos < len(s.Data) && (s.Data[s.Pos] == '+' || s.Data[s.Pos] == '-') {
			s.Pos++
		}
		if digits() == 0 {
			return nil, s.fail("bad number")
		}
	}
	return s.Data[start:s.Pos], nil
}

// String reads a string and returns its value, unescaped, as valid UTF-8.
// The result is a slice of Data when the string needs no change, else of a
// scratch buffer that the next call reuses: copy what you keep.
func (s *Scanner) String() ([]byte, error) {
	if s.Peek() != '"' {
		return nil, s.fail("want a string")
	}
	s.Pos++
	// Most strings are plain ASCII: plainEnd finds the closing quote and
	// checks the bytes before it in the same pass. Otherwise find the quote
	// with IndexByte and check the bytes before it as UTF-8; anything else
	// (escapes, control characters, invalid UTF-8, no end) is read byte
	// by byte by slowString, which reports errors where they are.
	rest := s.Data[s.Pos:]
	if q := plainEnd(rest); q >= 0 {
		s.Pos += q + 1
		return rest[:q], nil
	}
	if q := bytes.IndexByte(rest, '"'); q >= 0 {
		v := rest[:q]
		if cleanText(v, 0x80) || bytes.IndexByte(v, '\\') < 0 && !hasControl(v) && utf8.Valid(v) {
			s.Pos += q + 1
			return v, nil
		}
	}
	return s.slowString()
}

// cleanText reports a string's text that reads as it is, in one pass eight
// bytes at a time: no escape, no control character and, with high 0x80,
// no byte outside ASCII (which utf8.Valid would then have to check). It
// uses hasControl's borrow test for bytes below 0x20 and, on x^'\\' in each
// byte, for a zero byte.
func cleanText(v []byte, high uint64) bool {
	const ones, tops, spaces, backslashes = 0x0101010101010101, 0x8080808080808080, 0x2020202020202020, 0x5c5c5c5c5c5c5c5c
	high *= ones
	bad := func(x uint64) uint64 {
		y := x ^ backslashes
		return ((x-spaces)&^x|(y-ones)&^y)&tops | x&high
	}
	for len(v) >= 32 { // four words a branch: most strings are clean
		if bad(binary.LittleEndian.Uint64(v))|bad(binary.LittleEndian.Uint64(v[8:]))|
			bad(binary.LittleEndian.Uint64(v[16:]))|bad(binary.LittleEndian.Uint64(v[24:])) != 0 {
			return false
		}
		v = v[32:]
	}
	for len(v) >= 8 {
		if bad(binary.LittleEndian.Uint64(v)) != 0 {
			return false
		}
		v = v[8:]
	}
	for _, c := range v {
		if c < 0x20 || c == '\\' || uint64(c)&high != 0 {
			return false
		}
	}
	return true
}

// plainEnd returns the index of the first '"' in v when every byte before
// it is ASCII from 0x20 up other than '\', else -1. Most of a page's
// strings are short (names, keys, numbers' annotations): their first two
// words are read eight bytes at a time, flagging in each word the bytes
// that are '"', '\', below 0x20 or above 0x7f (notPlain, the encoder's
// test). A borrow can flag a byte above a flagged one, never below it, so
// the lowest flag is exact: the string ends there if it is the quote. A
// longer string's end is found by IndexByte and its bytes checked by
// cleanText, both faster per byte than the flags.
func plainEnd(v []byte) int {
	i := 0
	for ; i < 16 && len(v)-i >= 8; i += 8 {
		if m := notPlain(binary.LittleEndian.Uint64(v[i:])); m != 0 {
			if j := i + bits.TrailingZeros64(m)/8; v[j] == '"' {
				return j
			}
			return -1
		}
	}
	if i < 16 { // fewer than eight bytes left
		for ; i < len(v); i++ {
			switch c := v[i]; {
			case c == '"':
				return i
			case c < 0x20 || c == '\\' || c >= 0x80:
				return -1
			}
		}
		return -1
	}
	if q := bytes.IndexByte(v[i:], '"'); q >= 0 && cleanText(v[i:i+q], 0x80) {
		return i + q
	}
	return -1
}

// hasControl reports a byte below 0x20 in v, eight bytes at a time: in
// x-0x20 (per byte) a byte below 0x20 borrows into its top bit, which
// &^x keeps only where the byte itself was below 0x80.
func hasControl(v []byte) bool {
	for len(v) >= 8 {
		x := binary.LittleEndian.Uint64(v)
		if (x-0x2020202020202020)&^x&0x8080808080808080 != 0 {
			return true
		}
		v = v[8:]
	}
	for _, c := range v {
		if c < 0x20 {
			return true
		}
	}
	return false
}

// skipString moves past the string at s.Pos. A string without escapes is
// checked only as json.Valid checks it, for control characters: its UTF-8
// is the reader's concern (String reads an invalid byte as U+FFFD), and
// skipping is what the retry layer's check of every page does, so it is
// kept to a search for the closing quote and one word-at-a-time pass.
// Escapes are read by slowString, which reports a bad one.
func (s *Scanner) skipString() error {
	s.Pos++
	rest := s.Data[s.Pos:]
	if q := bytes.IndexByte(rest, '"'); q >= 0 {
		if v := rest[:q]; cleanText(v, 0) {
			s.Pos += q + 1
			return nil
		}
	}
	_, err := s.slowString()
	return err
}

// slowString unescapes the string from s.Pos (past the opening quote).
func (s *Scanner) slowString() ([]byte, error) {
	b := s.buf[:0]
	defer func() { s.buf = b[:0] }()
	for s.Pos < len(s.Data) {
		c := s.Data[s.Pos]
		switch {
		case c == '"':
			s.Pos++
			return b, nil
		case c < 0x20:
			return nil, s.fail("control character in string")
		case c == '\\':
			r, err := s.escape()
			if err != nil {
				return nil, err
			}
			b = utf8.AppendRune(b, r)
		case c < utf8.RuneSelf:
			b = append(b, c)
			s.Pos++
		default:
			r, size := utf8.DecodeRune(s.Data[s.Pos:])
			s.Pos += size // an invalid byte (size 1) is U+FFFD
			b = utf8.AppendRune(b, r)
		}
	}
	return nil, s.fail("unterminated string")
}

// escape decodes the escape sequence at s.Pos.
func (s *Scanner) escape() (rune, error) {
	if s.Pos+1 >= len(s.Data) {
		return 0, s.fail("unterminated string")
	}
	c := s.Data[s.Pos+1]
	s.Pos += 2
	switch c {
	case '"', '\\', '/':
		return rune(c), nil
	case 'b':
		return '\b', nil
	case 'f':
		return '\f', nil
	case 'n':
		return '\n', nil
	case 'r':
		return '\r', nil
	case 't':
		return '\t', nil
	case 'u':
		r, ok := s.hex4()
		if !ok {
			return 0, s.fail(`bad \u escape`)
		}
		if !utf16.IsSurrogate(r) {
			return r, nil
		}
		// A pair decodes to one rune; anything else is U+FFFD and the
		// next escape stands on its own.
		if s.Pos+1 < len(s.Data) && s.Data[s.Pos] == '\\' && s.Data[s.Pos+1] == 'u' {
			save := s.Pos
			s.Pos += 2
			if r2, ok := s.hex4(); ok {
				if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
					return dec, nil
				}
			}
			s.Pos = save
		}
		return utf8.RuneError, nil
	}
	s.Pos -= 2
	return 0, s.fail("bad escape")
}

func (s *Scanner) hex4() (rune, bool) {
	if len(s.Data)-s.Pos < 4 {
		return 0, false
	}
	var r rune
	for _, c := range s.Data[s.Pos : s.Pos+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	s.Pos += 4
	return r, true
}
