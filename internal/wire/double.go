package wire

import (
	"math"
	"strconv"
)

// Edm.Double's JSON forms: a number, or for the values JSON numbers cannot
// hold, a string. Microsoft's SDKs (.NET's Azure.Data.Tables, the Node and
// Python SDKs) write "NaN", "Infinity" and "-Infinity" with the Edm.Double
// annotation, and the service and Azurite store them; OData's own spellings
// "INF" and "-INF" come from older writers (the legacy .NET library's
// OData serializer).
const (
	DoubleNaN    = "NaN"
	DoublePosInf = "Infinity"
	DoubleNegInf = "-Infinity"
)

// AppendDouble appends x as the JSON value of an Edm.Double (the
// annotation is the caller's): the shortest number that reads back as x
// (bits is 64, or 32 for a float32), or one of the strings above for NaN
// and the infinities.
func AppendDouble(b []byte, x float64, bits int) []byte {
	switch {
	case math.IsNaN(x):
		return append(b, `"`+DoubleNaN+`"`...)
	case math.IsInf(x, 1):
		return append(b, `"`+DoublePosInf+`"`...)
	case math.IsInf(x, -1):
		return append(b, `"`+DoubleNegInf+`"`...)
	}
	return strconv.AppendFloat(b, x, 'g', -1, bits)
}

// DoubleSpecial returns the value of an Edm.Double written as a string
// for NaN or an infinity, in every spelling writers use ("NaN",
// "Infinity", "-Infinity", "INF", "-INF"); ok is false for any other text.
func DoubleSpecial(s string) (x float64, ok bool) {
	switch s {
	case DoubleNaN:
		return math.NaN(), true
	case DoublePosInf, "INF":
		return math.Inf(1), true
	case DoubleNegInf, "-INF":
		return math.Inf(-1), true
	}
	return 0, false
}

// ParseDouble reads an Edm.Double from a JSON number's text or a JSON
// string's contents: a special value (DoubleSpecial) or a number in JSON's
// syntax within float64's range. ok is false for anything else, a number
// that overflows float64 included (the service refuses those too).
func ParseDouble(s string) (x float64, ok bool) {
	if x, ok := DoubleSpecial(s); ok {
		return x, true
	}
	if !isJSONNumber(s) {
		return 0, false
	}
	x, err := strconv.ParseFloat(s, 64)
	return x, err == nil
}

// isJSONNumber reports whether s is one number in JSON's grammar, as
// Scanner.Number reads it, with nothing around it.
func isJSONNumber(s string) bool {
	if s == "" || s[0] == ' ' || s[0] == '\t' || s[0] == '\n' || s[0] == '\r' {
		return false
	}
	sc := Scanner{Data: []byte(s)}
	_, err := sc.Number()
	return err == nil && sc.Pos == len(s)
}
