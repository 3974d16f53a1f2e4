package query

import (
	"encoding/hex"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tablekit/tablekit/internal/errmap"
	"github.com/tablekit/tablekit/internal/wire"
	"github.com/tablekit/tablekit/table"
)

// kind is the EDM type of a literal.
type kind uint8

const (
	kindNone kind = iota
	kindString
	kindBool
	kindInt32
	kindInt64
	kindDouble
	kindDateTime
	kindGUID
	kindBinary
)

func (k kind) String() string {
	switch k {
	case kindString:
		return "Edm.String"
	case kindBool:
		return "Edm.Boolean"
	case kindInt32:
		return "Edm.Int32"
	case kindInt64:
		return "Edm.Int64"
	case kindDouble:
		return "Edm.Double"
	case kindDateTime:
		return "Edm.DateTime"
	case kindGUID:
		return "Edm.Guid"
	case kindBinary:
		return "Edm.Binary"
	}
	return "no type"
}

// Value is a typed OData literal. The service compares a property only with
// a literal of its own EDM type, so the constructor you pick (String, Int64,
// Double, ...) is the type you compare with. The zero Value is invalid.
type Value struct {
	lit  string
	kind kind
	str  string // the Go string of a String value, for scope analysis
	err  error
}

// String returns the literal as it appears in a filter, for example 5L or
// datetime'2024-01-02T03:04:05.0000000Z'; for an invalid Value it describes
// the error.
func (v Value) String() string {
	if v.err != nil {
		return "!(" + v.err.Error() + ")"
	}
	if v.kind == kindNone {
		return "!(zero query.Value)"
	}
	return v.lit
}

func invalid(format string, args ...any) Value {
	return Value{err: errmap.Invalidf("query", "filter", format, args...)}
}

// String is an Edm.String literal: s, valid UTF-8, in single quotes with
// each single quote inside doubled, so no value can end the literal early.
func String(s string) Value {
	if !utf8.ValidString(s) {
		return invalid("string literal is not valid UTF-8")
	}
	return Value{lit: wire.QuoteString(s), kind: kindString, str: s}
}

// Bool is an Edm.Boolean literal: true or false.
func Bool(b bool) Value {
	return Value{lit: strconv.FormatBool(b), kind: kindBool}
}

// Int32 is an Edm.Int32 literal, e.g. 42 or -7.
func Int32(n int32) Value {
	return Value{lit: strconv.FormatInt(int64(n), 10), kind: kindInt32}
}

// Int64 is an Edm.Int64 literal with the L suffix the service requires,
// e.g. 42L. Without the suffix the service would compare with an Int32 and
// match nothing.
func Int64(n int64) Value {
	return Value{lit: strconv.FormatInt(n, 10) + "L", kind: kindInt64}
}

// Double is an Edm.Double literal, always with a decimal point and never
// with an exponent, so both the service and Azurite read a double. NaN and
// the infinities make an invalid Value (the package documentation says why).
func Double(f float64) Value {
	switch {
	case math.IsNaN(f):
		return invalid("Double(NaN): no comparison selects NaN (it equals nothing, itself included); read the rows and test math.IsNaN")
	case math.IsInf(f, 1):
		return invalid("Double(+Inf): Azurite reads the service's literal INF as a property name; compare Gt(Double(math.MaxFloat64)) to select +Inf, Le(Double(math.MaxFloat64)) for the rest")
	case math.IsInf(f, -1):
		return invalid("Double(-Inf): Azurite reads the service's literal -INF as a property name; compare Lt(Double(-math.MaxFloat64)) to select -Inf, Ge(Double(-math.MaxFloat64)) for the rest")
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return Value{lit: s, kind: kindDouble}
}

// dateTimeLayout keeps the service's 100 ns resolution: 7 fractional digits.
const dateTimeLayout = "2006-01-02T15:04:05.0000000Z"

// DateTime is an Edm.DateTime literal of t converted to UTC, with the
// service's 100 ns resolution (finer digits are truncated). Years outside
// 0001-9999 cannot be written.
func DateTime(t time.Time) Value {
	t = t.UTC()
	if y := t.Year(); y < 1 || y > 9999 {
		return invalid("datetime literal year %d is outside 0001-9999", y)
	}
	return Value{lit: "datetime'" + t.Format(dateTimeLayout) + "'", kind: kindDateTime}
}

// GUID is an Edm.Guid literal, guid'xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx' in
// lower case (the form table writes).
func GUID(g table.GUID) Value {
	return Value{lit: "guid'" + g.String() + "'", kind: kindGUID}
}

// Binary is an Edm.Binary literal, X'0a1b...' in hexadecimal.
func Binary(b []byte) Value {
	return Value{lit: "X'" + hex.EncodeToString(b) + "'", kind: kindBinary}
}
