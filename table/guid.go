package table

import (
	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/internal/codec"
)

// GUID is a 128-bit identifier stored as Edm.Guid. Its text form is the
// lower-case 8-4-4-4-12 hex string.
type GUID [16]byte

// ParseGUID parses the 8-4-4-4-12 hex form, upper or lower case, optionally
// in braces. Other text is a *tablekit.ValidationError (tablekit.ErrInvalid)
// that does not repeat it.
func ParseGUID(s string) (GUID, error) {
	g, err := codec.ParseGUID(s)
	if err != nil {
		return GUID{}, &tablekit.ValidationError{Field: "GUID", Index: -1, Rule: "want 8-4-4-4-12 hex digits, optionally in braces"}
	}
	return GUID(g), nil
}

// String returns the 8-4-4-4-12 form, as the service shows it.
func (g GUID) String() string { return codec.GUID(g).String() }

// AppendText implements encoding.TextAppender: the 8-4-4-4-12 form
// appended to b without allocating, for writers of many GUIDs.
func (g GUID) AppendText(b []byte) ([]byte, error) { return codec.GUID(g).AppendText(b), nil }

// MarshalText implements encoding.TextMarshaler (the 8-4-4-4-12 form).
func (g GUID) MarshalText() ([]byte, error) { return codec.GUID(g).MarshalText() }

// UnmarshalText implements encoding.TextUnmarshaler, accepting what
// ParseGUID accepts, with its error.
func (g *GUID) UnmarshalText(b []byte) error {
	v, err := ParseGUID(string(b))
	if err != nil {
		return err
	}
	*g = v
	return nil
}
