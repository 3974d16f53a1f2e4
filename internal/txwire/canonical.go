package txwire

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// CanonicalLen returns len(Canonical(entity)) without building it: the
// length of what encoding/json writes for the map[string]any that
// json.Unmarshal makes of entity. It reads entity once and allocates
// little, where Canonical decodes and encodes everything (aztables does
// that anyway when it builds the body; doing it a second time only to
// measure would triple the CPU cost of a transaction).
//
// entity must be a JSON object. Objects with a repeated name (which
// json.Unmarshal collapses) are measured with Canonical itself.
func CanonicalLen(entity []byte) (int, error) {
	s := scanner{b: entity}
	s.ws()
	if s.i >= len(s.b) || s.b[s.i] != '{' {
		return 0, errors.New("txwire: entity is not a JSON object")
	}
	n, err := s.value(0)
	if err == nil {
		s.ws()
		if s.i != len(s.b) {
			err = fmt.Errorf("txwire: data after the entity at byte %d", s.i)
		}
	}
	if errors.Is(err, errDuplicate) {
		c, cerr := Canonical(entity)
		return len(c), cerr
	}
	if err != nil {
		return 0, err
	}
	return n, nil
}

var errDuplicate = errors.New("txwire: repeated name in an object")

// maxDepth is encoding/json's nesting limit.
const maxDepth = 10000

type scanner struct {
	b []byte
	i int
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) errAt(what string) error {
	return fmt.Errorf("txwire: invalid JSON entity: %s at byte %d", what, s.i)
}

// value measures the value at s.i as encoding/json re-encodes it.
func (s *scanner) value(depth int) (int, error) {
	if depth > maxDepth {
		return 0, s.errAt("nesting too deep")
	}
	s.ws()
	if s.i >= len(s.b) {
		return 0, s.errAt("unexpected end")
	}
	switch c := s.b[s.i]; {
	case c == '{':
		return s.object(depth)
	case c == '[':
		return s.array(depth)
	case c == '"':
		n, _, err := s.str(false)
		return n, err
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		return s.number()
	}
	return 0, s.errAt("unexpected character")
}

func (s *scanner) literal(lit string) (int, error) {
	if len(s.b)-s.i < len(lit) || string(s.b[s.i:s.i+len(lit)]) != lit {
		return 0, s.errAt("bad literal")
	}
	s.i += len(lit)
	return len(lit), nil
}

func (s *scanner) object(depth int) (int, error) {
	s.i++ // {
	n, members := 2, 0
	var seen map[string]struct{}
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return n, nil
	}
	for {
		s.ws()
		if s.i >= len(s.b) || s.b[s.i] != '"' {
			return 0, s.errAt("expected a name")
		}
		kn, key, err := s.str(true)
		if err != nil {
			return 0, err
		}
		if seen == nil {
			seen = make(map[string]struct{}, 16)
		}
		if _, dup := seen[key]; dup {
			return 0, errDuplicate
		}
		seen[key] = struct{}{}
		s.ws()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			return 0, s.errAt("expected ':'")
		}
		s.i++
		vn, err := s.value(depth + 1)
		if err != nil {
			return 0, err
		}
		n += kn + 1 + vn
		members++
		s.ws()
		if s.i >= len(s.b) {
			return 0, s.errAt("unexpected end")
		}
		switch s.b[s.i] {
		case ',':
			s.i++
			n++
		case '}':
			s.i++
			return n, nil
		default:
			return 0, s.errAt("expected ',' or '}'")
		}
	}
}

func (s *scanner) array(depth int) (int, error) {
	s.i++ // [
	n := 2
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == ']' {
		s.i++
		return n, nil
	}
	for {
		vn, err := s.value(depth + 1)
		if err != nil {
			return 0, err
		}
		n += vn
		s.ws()
		if s.i >= len(s.b) {
			return 0, s.errAt("unexpected end")
		}
		switch s.b[s.i] {
		case ',':
			s.i++
			n++
		case ']':
			s.i++
			return n, nil
		default:
			return 0, s.errAt("expected ',' or ']'")
		}
	}
}

// str measures the string at s.i: the decoded runes (json.Unmarshal's
// rules: invalid UTF-8 and lone surrogates become U+FFFD) encoded again by
// encoding/json (HTML-escaped). With keep it also returns the decoded
// value, for the duplicate check of names.
func (s *scanner) str(keep bool) (int, string, error) {
	s.i++ // opening quote
	n := 2
	var val []byte
	for {
		if s.i >= len(s.b) {
			return 0, "", s.errAt("unterminated string")
		}
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return n, string(val), nil
		case c < 0x20:
			return 0, "", s.errAt("control character in string")
		case c == '\\':
			r, err := s.escape()
			if err != nil {
				return 0, "", err
			}
			n += runeLen(r)
			if keep {
				val = utf8.AppendRune(val, r)
			}
		case c < utf8.RuneSelf:
			s.i++
			n += runeLen(rune(c))
			if keep {
				val = append(val, c)
			}
		default:
			r, size := utf8.DecodeRune(s.b[s.i:])
			s.i += size // an invalid byte (size 1) is U+FFFD
			n += runeLen(r)
			if keep {
				val = utf8.AppendRune(val, r)
			}
		}
	}
}

// escape decodes the escape sequence at s.i.
func (s *scanner) escape() (rune, error) {
	if s.i+1 >= len(s.b) {
		return 0, s.errAt("unterminated escape")
	}
	c := s.b[s.i+1]
	s.i += 2
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
			return 0, s.errAt("bad \\u escape")
		}
		if utf16.IsSurrogate(r) {
			// A pair decodes to one rune; anything else is U+FFFD and
			// the next escape stands on its own.
			if s.i+1 < len(s.b) && s.b[s.i] == '\\' && s.b[s.i+1] == 'u' {
				save := s.i
				s.i += 2
				if r2, ok := s.hex4(); ok {
					if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
						return dec, nil
					}
				}
				s.i = save
			}
			return utf8.RuneError, nil
		}
		return r, nil
	}
	return 0, s.errAt("bad escape")
}

func (s *scanner) hex4() (rune, bool) {
	if len(s.b)-s.i < 4 {
		return 0, false
	}
	var r rune
	for _, c := range s.b[s.i : s.i+4] {
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
	s.i += 4
	return r, true
}

// runeLen is the length of r as encoding/json writes it in a string.
func runeLen(r rune) int {
	if r < utf8.RuneSelf {
		switch {
		case r == '"' || r == '\\' || r == '\b' || r == '\f' || r == '\n' || r == '\r' || r == '\t':
			return 2
		case r < 0x20 || r == '<' || r == '>' || r == '&':
			return 6
		}
		return 1
	}
	if r == '\u2028' || r == '\u2029' {
		return 6
	}
	return utf8.RuneLen(r)
}

// number measures a JSON number as encoding/json writes the float64 that
// json.Unmarshal makes of it.
func (s *scanner) number() (int, error) {
	start := s.i
	if s.b[s.i] == '-' {
		s.i++
	}
	digits := func() int {
		d := 0
		for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
			s.i++
			d++
		}
		return d
	}
	if s.i < len(s.b) && s.b[s.i] == '0' {
		s.i++
	} else if digits() == 0 {
		return 0, s.errAt("bad number")
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if digits() == 0 {
			return 0, s.errAt("bad number")
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if digits() == 0 {
			return 0, s.errAt("bad number")
		}
	}
	f, err := strconv.ParseFloat(string(s.b[start:s.i]), 64)
	if err != nil {
		return 0, fmt.Errorf("txwire: number %s does not fit a float64", s.b[start:s.i])
	}
	var buf [32]byte
	return len(appendFloat(buf[:0], f)), nil
}

// appendFloat is encoding/json's float64 encoding.
func appendFloat(b []byte, f float64) []byte {
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}
