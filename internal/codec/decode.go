package codec

import (
	"encoding"
	"encoding/base64"
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

// token is one member of a flat JSON object, as found in the input.
type token struct {
	name  string
	str   string // unescaped string value, or the number's text
	kind  byte   // 's' string, 'n' number, 't'/'f' bool, 'z' null
	typed string // the value of name@odata.type, when present
}

var tokenPool = sync.Pool{New: func() any { s := make([]token, 0, 32); return &s }}

// Decode parses one entity (a flat JSON object as the service returns it)
// into v, which must be an addressable value of the plan's type. Properties
// the type does not have are ignored; fields with no property are left as
// they are. It never panics on malformed input.
func (p *Plan) Decode(data []byte, v reflect.Value) error {
	tp := tokenPool.Get().(*[]token)
	toks := (*tp)[:0]
	defer func() { *tp = toks[:0]; tokenPool.Put(tp) }()
	var err error
	toks, err = parseObject(data, toks)
	if err != nil {
		return err
	}
	// Attach annotations to their properties.
	for i := range toks {
		t := &toks[i]
		if base, ok := strings.CutSuffix(t.name, "@odata.type"); ok {
			// The service writes the annotation just before its value.
			if i+1 < len(toks) && toks[i+1].name == base {
				toks[i+1].typed = t.str
				continue
			}
			for j := range toks {
				if toks[j].name == base {
					toks[j].typed = t.str
					break
				}
			}
		}
	}
	for i := range toks {
		t := &toks[i]
		switch t.name {
		case "PartitionKey":
			if err := setKey(&p.keys[0], t, v); err != nil {
				return err
			}
			continue
		case "RowKey":
			if err := setKey(&p.keys[1], t, v); err != nil {
				return err
			}
			continue
		case "Timestamp":
			if p.ts != nil && t.kind == 's' {
				ts, err := parseTime(t.str)
				if err != nil {
					return &DecodeError{Property: "Timestamp", Reason: err.Error(), Err: err}
				}
				v.FieldByIndex(p.ts.index).Set(reflect.ValueOf(ts))
			}
			continue
		case "odata.etag":
			if p.etag != nil && t.kind == 's' {
				v.FieldByIndex(p.etag.index).SetString(t.str)
			}
			continue
		}
		idx, ok := p.byName[t.name]
		if !ok {
			continue
		}
		f := &p.fields[idx]
		if err := setField(f, t, v.FieldByIndex(f.index)); err != nil {
			return err
		}
	}
	return nil
}

func setKey(f *field, t *token, v reflect.Value) error {
	if t.kind != 's' {
		return &DecodeError{Property: f.name, Reason: "key is not a string"}
	}
	v.FieldByIndex(f.index).SetString(t.str)
	return nil
}

func mismatch(f *field, t *token, want string) error {
	got := t.typed
	if got == "" {
		switch t.kind {
		case 's':
			got = "Edm.String"
		case 'n':
			got = "a JSON number"
		case 't', 'f':
			got = "Edm.Boolean"
		}
	}
	return &DecodeError{Property: f.name, Reason: "stored as " + got + ", field " + f.goName + " wants " + want}
}

func setField(f *field, t *token, fv reflect.Value) error {
	if t.kind == 'z' {
		fv.SetZero()
		return nil
	}
	if f.ptr {
		if fv.IsNil() {
			fv.Set(reflect.New(f.typ))
		}
		fv = fv.Elem()
	}
	switch f.kind {
	case kString:
		if t.kind != 's' || (t.typed != "" && t.typed != "Edm.String") {
			return mismatch(f, t, "Edm.String")
		}
		fv.SetString(t.str)
	case kBool:
		if t.kind != 't' && t.kind != 'f' {
			return mismatch(f, t, "Edm.Boolean")
		}
		fv.SetBool(t.kind == 't')
	case kInt32, kInt64:
		// Accept Int32 numbers and Int64 strings for any integer field, and
		// check the range of the field itself.
		var text string
		switch {
		case t.kind == 'n' && (t.typed == "" || t.typed == "Edm.Int32" || t.typed == "Edm.Int64"):
			text = t.str
		case t.kind == 's' && t.typed == "Edm.Int64":
			text = t.str
		default:
			return mismatch(f, t, "an integer")
		}
		if fv.CanInt() {
			n, err := strconv.ParseInt(text, 10, 64)
			if err != nil || fv.OverflowInt(n) {
				return &DecodeError{Property: f.name, Reason: "integer " + strconv.Quote(text) + " does not fit " + fv.Type().String()}
			}
			fv.SetInt(n)
		} else {
			n, err := strconv.ParseUint(text, 10, 64)
			if err != nil || fv.OverflowUint(n) {
				return &DecodeError{Property: f.name, Reason: "integer " + strconv.Quote(text) + " does not fit " + fv.Type().String()}
			}
			fv.SetUint(n)
		}
	case kDouble:
		var x float64
		switch {
		case t.kind == 'n' && (t.typed == "" || t.typed == "Edm.Double" || t.typed == "Edm.Int32"):
			var err error
			if x, err = strconv.ParseFloat(t.str, 64); err != nil {
				return &DecodeError{Property: f.name, Reason: "bad number", Err: err}
			}
		case t.kind == 's' && t.typed == "Edm.Double":
			switch t.str {
			case "NaN":
				x = math.NaN()
			case "INF", "Infinity":
				x = math.Inf(1)
			case "-INF", "-Infinity":
				x = math.Inf(-1)
			default:
				var err error
				if x, err = strconv.ParseFloat(t.str, 64); err != nil {
					return &DecodeError{Property: f.name, Reason: "bad Edm.Double", Err: err}
				}
			}
		default:
			return mismatch(f, t, "Edm.Double")
		}
		if fv.Kind() == reflect.Float32 && !math.IsInf(x, 0) && !math.IsNaN(x) && math.Abs(x) > math.MaxFloat32 {
			return &DecodeError{Property: f.name, Reason: "value does not fit float32"}
		}
		fv.SetFloat(x)
	case kTime:
		if t.kind != 's' || (t.typed != "Edm.DateTime" && t.typed != "") {
			return mismatch(f, t, "Edm.DateTime")
		}
		ts, err := parseTime(t.str)
		if err != nil {
			return &DecodeError{Property: f.name, Reason: err.Error(), Err: err}
		}
		fv.Set(reflect.ValueOf(ts))
	case kGUID:
		if t.kind != 's' || (t.typed != "Edm.Guid" && t.typed != "") {
			return mismatch(f, t, "Edm.Guid")
		}
		g, err := ParseGUID(t.str)
		if err != nil {
			return &DecodeError{Property: f.name, Reason: err.Error(), Err: err}
		}
		fv.Set(reflect.ValueOf(g).Convert(fv.Type()))
	case kBinary:
		if t.kind != 's' || (t.typed != "Edm.Binary" && t.typed != "") {
			return mismatch(f, t, "Edm.Binary")
		}
		raw, err := base64.StdEncoding.AppendDecode(make([]byte, 0, base64.StdEncoding.DecodedLen(len(t.str))), []byte(t.str))
		if err != nil {
			return &DecodeError{Property: f.name, Reason: "bad base64", Err: err}
		}
		fv.SetBytes(raw)
	case kText:
		if t.kind != 's' {
			return mismatch(f, t, "Edm.String")
		}
		u, ok := fv.Addr().Interface().(encoding.TextUnmarshaler)
		if !ok {
			return &DecodeError{Property: f.name, Reason: "field is not a TextUnmarshaler"}
		}
		if err := u.UnmarshalText([]byte(t.str)); err != nil {
			return &DecodeError{Property: f.name, Reason: "UnmarshalText: " + err.Error(), Err: err}
		}
	case kJSON:
		if t.kind != 's' {
			return mismatch(f, t, "a JSON string")
		}
		if err := json.Unmarshal([]byte(t.str), fv.Addr().Interface()); err != nil {
			return &DecodeError{Property: f.name, Reason: "json: " + err.Error(), Err: err}
		}
	}
	return nil
}

// parseTime accepts the service's forms: RFC 3339 with up to 7 fractional
// digits, always returned in UTC.
func parseTime(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		// Some writers omit the zone; the service stores UTC.
		t2, err2 := time.Parse("2006-01-02T15:04:05.9999999", s)
		if err2 != nil {
			return time.Time{}, err
		}
		t = t2
	}
	return t.UTC(), nil
}

// ---- a small parser for flat JSON objects ----

type syntaxError struct {
	off int
	msg string
}

func (e *syntaxError) Error() string { return "offset " + strconv.Itoa(e.off) + ": " + e.msg }

func badJSON(off int, msg string) error {
	se := &syntaxError{off: off, msg: msg}
	return &DecodeError{Reason: "invalid JSON at " + se.Error(), Err: se}
}

func skipSpace(d []byte, i int) int {
	for i < len(d) && (d[i] == ' ' || d[i] == '\t' || d[i] == '\n' || d[i] == '\r') {
		i++
	}
	return i
}

// parseObject reads {"name": scalar, ...}. Nested objects and arrays are
// skipped (the service never sends them in an entity; other writers may).
func parseObject(d []byte, toks []token) ([]token, error) {
	i := skipSpace(d, 0)
	if i >= len(d) || d[i] != '{' {
		return toks, badJSON(i, "want {")
	}
	i = skipSpace(d, i+1)
	if i < len(d) && d[i] == '}' {
		return toks, trailing(d, i+1)
	}
	for {
		name, j, err := parseString(d, i)
		if err != nil {
			return toks, err
		}
		i = skipSpace(d, j)
		if i >= len(d) || d[i] != ':' {
			return toks, badJSON(i, "want :")
		}
		i = skipSpace(d, i+1)
		if i >= len(d) {
			return toks, badJSON(i, "want a value")
		}
		t := token{name: name}
		switch c := d[i]; {
		case c == '"':
			t.kind = 's'
			t.str, i, err = parseString(d, i)
		case c == 't':
			t.kind, i, err = 't', i+4, literal(d, i, "true")
		case c == 'f':
			t.kind, i, err = 'f', i+5, literal(d, i, "false")
		case c == 'n':
			t.kind, i, err = 'z', i+4, literal(d, i, "null")
		case c == '-' || (c >= '0' && c <= '9'):
			t.kind = 'n'
			t.str, i, err = parseNumber(d, i)
		case c == '{' || c == '[':
			t.kind = 'x'
			i, err = skipValue(d, i)
		default:
			err = badJSON(i, "unexpected character")
		}
		if err != nil {
			return toks, err
		}
		toks = append(toks, t)
		i = skipSpace(d, i)
		if i >= len(d) {
			return toks, badJSON(i, "unterminated object")
		}
		if d[i] == '}' {
			return toks, trailing(d, i+1)
		}
		if d[i] != ',' {
			return toks, badJSON(i, "want , or }")
		}
		i = skipSpace(d, i+1)
	}
}

func trailing(d []byte, i int) error {
	if i = skipSpace(d, i); i != len(d) {
		return badJSON(i, "data after the object")
	}
	return nil
}

func literal(d []byte, i int, lit string) error {
	if len(d)-i < len(lit) || string(d[i:i+len(lit)]) != lit {
		return badJSON(i, "bad literal")
	}
	return nil
}

func parseNumber(d []byte, i int) (string, int, error) {
	start := i
	if d[i] == '-' {
		i++
	}
	digits := 0
	for i < len(d) {
		c := d[i]
		if (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-' {
			if c >= '0' && c <= '9' {
				digits++
			}
			i++
			continue
		}
		break
	}
	if digits == 0 {
		return "", i, badJSON(start, "bad number")
	}
	return string(d[start:i]), i, nil
}

// parseString reads a JSON string at d[i] == '"' and returns it unescaped.
func parseString(d []byte, i int) (string, int, error) {
	if i >= len(d) || d[i] != '"' {
		return "", i, badJSON(i, "want a string")
	}
	i++
	start := i
	// Fast path: no escapes.
	for i < len(d) {
		c := d[i]
		if c == '"' {
			s := d[start:i]
			if !utf8.Valid(s) {
				return strings.ToValidUTF8(string(s), "\uFFFD"), i + 1, nil
			}
			return string(s), i + 1, nil
		}
		if c == '\\' {
			break
		}
		if c < 0x20 {
			return "", i, badJSON(i, "control character in string")
		}
		i++
	}
	buf := make([]byte, 0, i-start+16)
	buf = append(buf, d[start:i]...)
	for i < len(d) {
		c := d[i]
		switch {
		case c == '"':
			return strings.ToValidUTF8(string(buf), "\uFFFD"), i + 1, nil
		case c < 0x20:
			return "", i, badJSON(i, "control character in string")
		case c != '\\':
			buf = append(buf, c)
			i++
			continue
		}
		if i+1 >= len(d) {
			break
		}
		e := d[i+1]
		i += 2
		switch e {
		case '"', '\\', '/':
			buf = append(buf, e)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, n, ok := hex4(d, i)
			if !ok {
				return "", i, badJSON(i, "bad \\u escape")
			}
			i = n
			if utf16.IsSurrogate(r) {
				if r2, n2, ok2 := hex4After(d, i); ok2 {
					if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
						r, i = dec, n2
					} else {
						r = utf8.RuneError
					}
				} else {
					r = utf8.RuneError
				}
			}
			buf = utf8.AppendRune(buf, r)
		default:
			return "", i, badJSON(i-1, "bad escape")
		}
	}
	return "", i, badJSON(i, "unterminated string")
}

func hex4(d []byte, i int) (rune, int, bool) {
	if len(d)-i < 4 {
		return 0, i, false
	}
	var r rune
	for _, c := range d[i : i+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, i, false
		}
	}
	return r, i + 4, true
}

// hex4After reads a following \uXXXX (the low half of a surrogate pair).
func hex4After(d []byte, i int) (rune, int, bool) {
	if len(d)-i < 6 || d[i] != '\\' || d[i+1] != 'u' {
		return 0, i, false
	}
	return hex4(d, i+2)
}

// skipValue skips a nested object or array, strings included.
func skipValue(d []byte, i int) (int, error) {
	depth := 0
	for i < len(d) {
		switch d[i] {
		case '"':
			_, j, err := parseString(d, i)
			if err != nil {
				return j, err
			}
			i = j
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1, nil
			}
		}
		i++
	}
	return i, badJSON(i, "unterminated value")
}
