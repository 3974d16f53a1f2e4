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
func ParseGUID(s string) (GUID, error) {
	var g GUID
	if len(s) == 38 && s[0] == '{' && s[37] == '}' {
		s = s[1:37]
	}
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return g, errGUID
	}
	// The hex digits of each group, decoded in place (no joined copy).
	j := 0
	for _, group := range [...][2]int{{0, 8}, {9, 13}, {14, 18}, {19, 23}, {24, 36}} {
		for i := group[0]; i < group[1]; i += 2 {
			hi, lo := unhex(s[i]), unhex(s[i+1])
			if hi > 0xf || lo > 0xf {
				return GUID{}, errGUID
			}
			g[j] = hi<<4 | lo
			j++
		}
	}
	return g, nil
}

// unhex is a hex digit's value, or 0xff for any other byte.
func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10
	}
	return 0xff
}
