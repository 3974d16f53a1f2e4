package codec

import (
	"encoding/hex"
	"errors"
)

// GUID is a 128-bit identifier stored as Edm.Guid. Its text form is the
// usual lower-case 8-4-4-4-12 hex string.
type GUID [16]byte

// String returns the 8-4-4-4-12 form.
func (g GUID) String() string { return string(g.AppendText(nil)) }

// appendText appends the 8-4-4-4-12 form without allocating, for Encode.
func (g GUID) AppendText(b []byte) []byte {
	var buf [36]byte
	hex.Encode(buf[0:8], g[0:4])
	buf[8] = '-'
	hex.Encode(buf[9:13], g[4:6])
	buf[13] = '-'
	hex.Encode(buf[14:18], g[6:8])
	buf[18] = '-'
	hex.Encode(buf[19:23], g[8:10])
	buf[23] = '-'
	hex.Encode(buf[24:36], g[10:16])
	return append(b, buf[:]...)
}

// MarshalText implements encoding.TextMarshaler.
func (g GUID) MarshalText() ([]byte, error) { return g.AppendText(nil), nil }

// UnmarshalText implements encoding.TextUnmarshaler; it accepts upper or
// lower case, with or without braces.
func (g *GUID) UnmarshalText(b []byte) error {
	v, err := ParseGUID(string(b))
	if err != nil {
		return err
	}
	*g = v
	return nil
}

// errGUID never repeats the input, like every error of this package.
var errGUID = errors.New("table: invalid GUID: want 8-4-4-4-12 hex digits")

// ParseGUID parses the 8-4-4-4-12 hex form, optionally in braces.
func ParseGUID(s string) (GUID, error) { return parseGUID(s) }

// parseGUID is ParseGUID for text in either form: a raw read checks the
// GUIDs of every entity where they lie, with no string made of each.
func parseGUID[T string | []byte](s T) (GUID, error) {
	var g GUID
	if len(s) == 38 && s[0] == '{' && s[37] == '}' {
		s = s[1:37]
	}
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return g, errGUID
	}
	// Each byte from its two hex digits where they lie (no joined copy),
	// through a table: a GUID is decoded for every entity that has one.
	for j, i := range guidPairs {
		hi, lo := unhex[s[i]], unhex[s[i+1]]
		if hi|lo > 0xf {
			return GUID{}, errGUID
		}
		g[j] = hi<<4 | lo
	}
	return g, nil
}

// guidPairs are where each byte's two hex digits start in the 8-4-4-4-12
// form.
var guidPairs = [16]int{0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34}

// unhex is each byte's value as a hex digit, 0xff for any other byte.
var unhex = func() (t [256]byte) {
	for c := range t {
		switch {
		case c >= '0' && c <= '9':
			t[c] = byte(c - '0')
		case c >= 'a' && c <= 'f':
			t[c] = byte(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			t[c] = byte(c - 'A' + 10)
		default:
			t[c] = 0xff
		}
	}
	return t
}()
