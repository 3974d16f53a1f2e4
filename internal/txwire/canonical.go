package txwire

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/tablekit/tablekit/internal/wire"
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
	s := wire.Scanner{Data: entity}
	if s.Peek() != '{' {
		return 0, errors.New("txwire: entity is not a JSON object")
	}
	n, err := measure(&s)
	if err == nil {
		err = s.End()
	}
	if errors.Is(err, errDuplicate) {
		c, cerr := Canonical(entity)
		return len(c), cerr
	}
	if err != nil {
		return 0, fmt.Errorf("txwire: entity: %w", err)
	}
	return n, nil
}

var errDuplicate = errors.New("txwire: repeated name in an object")

// measure reads the value at the scanner and returns its length as
// encoding/json re-encodes it.
func measure(s *wire.Scanner) (int, error) {
	switch c := s.Peek(); {
	case c == '{':
		n := 2
		var seen map[string]struct{}
		err := s.Object(func(name []byte) error {
			if seen == nil {
				seen = make(map[string]struct{}, 16)
			} else {
				n++ // the comma before this member
			}
			if _, dup := seen[string(name)]; dup {
				return errDuplicate
			}
			seen[string(name)] = struct{}{}
			n += strLen(name) + 1
			vn, err := measure(s)
			n += vn
			return err
		})
		return n, err
	case c == '[':
		n := 1
		err := s.Array(func() error {
			vn, err := measure(s)
			n += vn + 1 // the value and the comma or ]
			return err
		})
		return max(n, 2), err
	case c == '"':
		v, err := s.String()
		return strLen(v), err
	case c == '-' || (c >= '0' && c <= '9'):
		text, err := s.Number()
		if err != nil {
			return 0, err
		}
		return numberLen(text)
	}
	lit, err := s.Literal()
	switch lit {
	case 't':
		return len("true"), err
	case 'f':
		return len("false"), err
	}
	return len("null"), err
}

// strLen is the length of a decoded string as encoding/json writes it
// (HTML-escaped), quotes included.
func strLen(v []byte) int {
	n := 2
	for i := 0; i < len(v); {
		r, size := utf8.DecodeRune(v[i:])
		n += runeLen(r)
		i += size
	}
	return n
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

// numberLen is the length of the number text as encoding/json writes the
// float64 that json.Unmarshal makes of it.
func numberLen(text []byte) (int, error) {
	f, err := strconv.ParseFloat(string(text), 64)
	if err != nil {
		return 0, fmt.Errorf("txwire: number %s does not fit a float64", text)
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
