package codec

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// The EDM types the Table service stores, as annotations name them.
const (
	edmString   = "Edm.String"
	edmBoolean  = "Edm.Boolean"
	edmInt32    = "Edm.Int32"
	edmInt64    = "Edm.Int64"
	edmDouble   = "Edm.Double"
	edmDateTime = "Edm.DateTime"
	edmGUID     = "Edm.Guid"
	edmBinary   = "Edm.Binary"
)

// An annotation names a value's type; it never changes it. Each EDM type
// has its JSON form: a number for Int32, true or false for Boolean, a
// string for String, Int64 (digits), DateTime, Guid and Binary (base64),
// and for Double a number or a string (NaN and the infinities, which no
// JSON number holds). A value in another form, or out of its type's range,
// is an error naming the property, the type and what is wrong, never a
// value of another type. Only a number without an annotation is typed by
// its form (numberType).

// jsonKind names a token kind in a message.
func jsonKind(k byte) string {
	switch k {
	case 's':
		return "a JSON string"
	case 'n':
		return "a JSON number"
	case 't', 'f':
		return "a JSON boolean"
	case 'z':
		return "null"
	}
	return "a JSON object or array"
}

// formProblem says what is wrong with a value of token kind k annotated
// edm, or returns "" when k is a form of edm. null goes with any type.
func formProblem(edm string, k byte) string {
	if k == 'z' {
		return ""
	}
	var want byte
	switch edm {
	case edmString, edmInt64, edmDateTime, edmGUID, edmBinary:
		want = 's'
	case edmInt32:
		want = 'n'
	case edmBoolean:
		if k == 'f' {
			return ""
		}
		want = 't'
	case edmDouble:
		if k == 's' {
			return ""
		}
		want = 'n'
	default:
		return "annotated " + quote(edm) + ", which is not a type the service stores (Edm.String, Edm.Boolean, Edm.Int32, Edm.Int64, Edm.Double, Edm.DateTime, Edm.Guid, Edm.Binary)"
	}
	if k == want {
		return ""
	}
	return edm + " value is " + jsonKind(k) + ", not " + jsonKind(want)
}

// numberType is the EDM type of an unannotated number by its form, as the
// service and Azurite write them: an integer is an Int32, or an Int64 beyond
// Int32's range; a number with a '.' or an exponent is a Double. An
// integer beyond Int64's range has no type: problem says so.
func numberType(num string) (edm, problem string) {
	edm, _, problem = numberValue(num)
	return edm, problem
}

// numberValue is numberType with the value of an integer.
func numberValue(num string) (edm string, n int64, problem string) {
	if n, ok := shortInt(num); ok {
		if n == int64(int32(n)) {
			return edmInt32, n, ""
		}
		return edmInt64, n, ""
	}
	if strings.ContainsAny(num, ".eE") {
		return edmDouble, 0, ""
	}
	n, err := strconv.ParseInt(num, 10, 64)
	switch {
	case err != nil:
		return "", 0, "integer without annotation beyond Edm.Int64's range (annotate it Edm.Double)"
	case n == int64(int32(n)):
		return edmInt32, n, ""
	}
	return edmInt64, n, ""
}

// shortInt reads an integer of at most 18 digits, which cannot overflow,
// after an optional '-': most numbers without an annotation are such
// Int32s, read here without ContainsAny's search and ParseInt's checks. ok
// is false for anything else (a fraction, an exponent, a sign '+',
// more digits), which ParseInt reads as before.
func shortInt(num string) (n int64, ok bool) {
	digits := strings.TrimPrefix(num, "-")
	if len(digits) == 0 || len(digits) > 18 {
		return 0, false
	}
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if len(digits) < len(num) {
		n = -n
	}
	return n, true
}

// parseInt32 reads an Edm.Int32 value from a JSON number's text.
func parseInt32(num string) (int32, string) {
	n, err := strconv.ParseInt(num, 10, 32)
	switch {
	case err == nil:
		return int32(n), ""
	case strings.ContainsAny(num, ".eE"):
		return 0, "Edm.Int32 value is not an integer"
	}
	return 0, "Edm.Int32 value out of range (-2147483648 to 2147483647)"
}

// parseInt64 reads an Edm.Int64 value from a JSON string's contents.
func parseInt64(s string) (int64, string) {
	n, err := strconv.ParseInt(s, 10, 64)
	switch {
	case err == nil:
		return n, ""
	case err.(*strconv.NumError).Err == strconv.ErrRange:
		return 0, "Edm.Int64 value out of range (-9223372036854775808 to 9223372036854775807)"
	}
	return 0, "Edm.Int64 value is not an integer"
}

// parseNumber reads an Edm.Double from a JSON number's text (the scanner
// checked its syntax); ok is false beyond float64's range.
func parseNumber(num string) (float64, bool) {
	x, err := strconv.ParseFloat(num, 64)
	return x, err == nil
}

// numberInRange reports whether a JSON number's text (its syntax checked
// by the scanner) is within float64's range, for a check that needs no
// value. One without an exponent and under 300 characters always is
// (float64 reaches past 10^308), so strconv reads only the rest.
func numberInRange(num string) bool {
	if len(num) < 300 && strings.IndexByte(num, 'e') < 0 && strings.IndexByte(num, 'E') < 0 {
		return true
	}
	_, ok := parseNumber(num)
	return ok
}

// doubleProblem is the message for an Edm.Double that does not parse.
const doubleProblem = "Edm.Double value is not a number within its range, NaN, Infinity or -Infinity"

// The Edm.DateTime range the service stores.
var (
	minDateTime = time.Date(1601, 1, 1, 0, 0, 0, 0, time.UTC)
	maxDateTime = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
)

// parseDateTime reads an Edm.DateTime value (parseTime's forms) and checks
// its range.
func parseDateTime(s string) (time.Time, string) {
	t, err := parseTime(s)
	switch {
	case err != nil:
		return t, "Edm.DateTime value is not an RFC 3339 time"
	case t.Before(minDateTime) || !t.Before(maxDateTime):
		return t, "Edm.DateTime value outside 1601-01-01 to 9999-12-31"
	}
	return t, ""
}

// finite reports whether x is neither NaN nor an infinity.
func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
