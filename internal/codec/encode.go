package codec

import (
	"encoding"
	"encoding/base64"
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/tablekit/tablekit/internal/wire"
)

// Service limits, checked before any request.
const (
	MaxProperties  = 252 // user properties, PartitionKey/RowKey/Timestamp excluded
	MaxKeyUTF16    = wire.MaxKeyUTF16
	MaxStringUTF16 = 32 << 10 // 32 Ki UTF-16 code units = 64 KiB
	MaxBinary      = 64 << 10
	MaxEntity      = 1 << 20 // by the service's size formula
)

// dateTimeLayout keeps the service's 100 ns resolution (7 digits).
const dateTimeLayout = "2006-01-02T15:04:05.0000000Z"

// ValidateKey checks the value of the key named name (PartitionKey or
// RowKey) by wire.CheckKey, as a *ValidationError.
func ValidateKey(name, v string) error {
	if v == "" {
		return &ValidationError{Property: name, Rule: RuleKeyEmpty, Detail: "aztables v1.4.1 cannot address an entity with an empty key"}
	}
	if bad := wire.CheckKey(v); bad != nil {
		return &ValidationError{Property: name, Rule: bad.Rule, Detail: bad.Detail}
	}
	return nil
}

// CheckKey is ValidateKey for a key given on its own (to Get, Delete, a
// point query or a batch delete) rather than in an entity: the error says
// so and also matches ErrInvalidKey.
func CheckKey(name, v string) error {
	err := ValidateKey(name, v)
	if ve, ok := err.(*ValidationError); ok {
		ve.key = true
	}
	return err
}

// Keys returns the PartitionKey and RowKey of v, a value of the plan's type.
func (p *Plan) Keys(v reflect.Value) (pk, rk string) {
	return v.FieldByIndex(p.keys[0].index).String(), v.FieldByIndex(p.keys[1].index).String()
}

// Encode appends the entity's JSON (with @odata.type annotations where the
// JSON type is ambiguous) to dst, validating every service rule first. v is a
// value of the plan's type. The ETag and Timestamp fields are never sent.
func (p *Plan) Encode(dst []byte, v reflect.Value) ([]byte, error) {
	if p.dyn != nil && p.dyn.raw {
		return p.encodeRaw(dst, v)
	}
	if p.dyn != nil {
		return p.encodeDynamic(dst, v)
	}
	pk, rk := p.Keys(v)
	start := len(dst)
	dst, size, err := appendKeys(dst, pk, rk)
	if err != nil {
		return dst, err
	}
	count := 0
	for i := range p.fields {
		f := &p.fields[i]
		fv := v.FieldByIndex(f.index)
		if f.ptr {
			if fv.IsNil() {
				continue
			}
			fv = fv.Elem()
		} else if (f.omitEmpty && fv.IsZero()) || (f.kind == kBinary && fv.IsNil()) {
			continue
		}
		mark := len(dst)
		dst = append(dst, ',')
		dst = append(dst, f.annoJSON...)
		dst = append(dst, f.nameJSON...)
		n, skip, err := appendValue(&dst, f, fv)
		if err != nil {
			return dst[:start], err
		}
		if skip {
			dst = dst[:mark]
			continue
		}
		count++
		size += 8 + 2*wire.UTF16Len(f.name) + n
	}
	if err := checkTotals(count, size); err != nil {
		return dst[:start], err
	}
	return append(dst, '}'), nil
}

// Marshal is Encode into a new buffer, sized by the entities encoded before.
func (p *Plan) Marshal(v reflect.Value) ([]byte, error) {
	n := p.size.Load()
	dst, err := p.Encode(make([]byte, 0, max(256, n+n/8)), v)
	if err == nil && len(dst) <= maxSizeHint {
		p.size.Store(int64(len(dst)))
	}
	return dst, err
}

// maxSizeHint keeps one huge entity from sizing every later buffer.
const maxSizeHint = 64 << 10

// appendKeys validates the keys and opens the entity's JSON with them. It
// returns their share of the service's documented size formula: 4 bytes and
// the keys in UTF-16 (each property adds 8 bytes, its name in UTF-16 and
// its value's size).
func appendKeys(dst []byte, pk, rk string) ([]byte, int, error) {
	if err := ValidateKey("PartitionKey", pk); err != nil {
		return dst, 0, err
	}
	if err := ValidateKey("RowKey", rk); err != nil {
		return dst, 0, err
	}
	dst = append(dst, `{"PartitionKey":`...)
	dst = wire.AppendString(dst, pk)
	dst = append(dst, `,"RowKey":`...)
	dst = wire.AppendString(dst, rk)
	return dst, 4 + 2*(wire.UTF16Len(pk)+wire.UTF16Len(rk)), nil
}

// checkTotals applies the entity-wide limits: property count and size.
func checkTotals(count, size int) error {
	if count > MaxProperties {
		return &ValidationError{Property: "(entity)", Rule: RuleTooManyProperties, Detail: strconv.Itoa(count) + " properties"}
	}
	if size > MaxEntity {
		return &ValidationError{Property: "(entity)", Rule: RuleEntityTooLarge, Detail: strconv.Itoa(size) + " bytes by the service's formula"}
	}
	return nil
}

// appendValue writes one value and returns its size by the service's formula.
// skip reports a value that is not stored at all (the zero time.Time).
func appendValue(dst *[]byte, f *field, fv reflect.Value) (size int, skip bool, err error) {
	if f.parse {
		return appendParsed(dst, f, fv)
	}
	*dst, size, skip, err = appendKind(*dst, f, fv)
	return size, skip, err
}

// appendKind is appendValue for a value written by its Go kind.
func appendKind(b []byte, f *field, fv reflect.Value) ([]byte, int, bool, error) {
	switch f.kind {
	case kString:
		n, err := appendStringValue(&b, f.name, fv.String())
		return b, n, false, err
	case kBool:
		b = strconv.AppendBool(b, fv.Bool())
		return b, 1, false, nil
	case kInt32:
		var n int64
		if fv.CanInt() {
			n = fv.Int()
		} else {
			n = int64(fv.Uint())
		}
		if n < math.MinInt32 || n > math.MaxInt32 {
			return b, 0, false, &ValidationError{Property: f.name, Rule: RuleInt32Range, Detail: "use int64 for Edm.Int64"}
		}
		b = strconv.AppendInt(b, n, 10)
		return b, 4, false, nil
	case kInt64:
		b = append(b, '"')
		if fv.CanInt() {
			b = strconv.AppendInt(b, fv.Int(), 10)
		} else {
			u := fv.Uint()
			if u > math.MaxInt64 {
				return b, 0, false, &ValidationError{Property: f.name, Rule: RuleInt64Range}
			}
			b = strconv.AppendUint(b, u, 10)
		}
		b = append(b, '"')
		return b, 8, false, nil
	case kDouble:
		bits := 64
		if fv.Kind() == reflect.Float32 {
			bits = 32
		}
		b = wire.AppendDouble(b, fv.Float(), bits)
		return b, 8, false, nil
	case kTime:
		var t time.Time
		if fv.Type() == timeType && fv.CanAddr() { // a pointer boxes without allocating
			t = *fv.Addr().Interface().(*time.Time)
		} else { // or a type defined on time.Time, such as aztables.EDMDateTime
			t = fv.Convert(timeType).Interface().(time.Time)
		}
		if t.IsZero() {
			return b, 0, true, nil
		}
		n, err := appendTimeValue(&b, f.name, t)
		return b, n, false, err
	case kGUID:
		var g GUID
		if fv.CanAddr() { // Bytes of an addressable array allocates nothing
			copy(g[:], fv.Bytes())
		} else {
			g = fv.Convert(guidType).Interface().(GUID)
		}
		n := appendGUIDValue(&b, g)
		return b, n, false, nil
	case kGUIDText:
		g, err := ParseGUID(fv.String())
		if err != nil {
			return b, 0, false, &ValidationError{Property: f.name, Rule: RuleMarshal, Detail: err.Error(), Err: err}
		}
		b = append(b, '"')
		b = g.AppendText(b)
		b = append(b, '"')
		return b, 16, false, nil
	case kBinary:
		n, err := appendBinaryValue(&b, f.name, fv.Bytes())
		return b, n, false, err
	case kText:
		tm, ok := fv.Interface().(encoding.TextMarshaler)
		if !ok {
			return b, 0, false, &ValidationError{Property: f.name, Rule: RuleMarshal, Detail: "not a TextMarshaler"}
		}
		text, err := tm.MarshalText()
		if err != nil {
			return b, 0, false, &ValidationError{Property: f.name, Rule: RuleMarshal, Detail: err.Error(), Err: err}
		}
		n, err := appendStringValue(&b, f.name, string(text))
		return b, n, false, err
	case kJSON:
		raw, err := json.Marshal(fv.Interface())
		if err != nil {
			return b, 0, false, &ValidationError{Property: f.name, Rule: RuleMarshal, Detail: err.Error(), Err: err}
		}
		n, err := appendStringValue(&b, f.name, string(raw))
		return b, n, false, err
	}
	return b, 0, false, &ValidationError{Property: f.name, Rule: RuleMarshal, Detail: "unsupported kind"}
}

// appendStringValue writes s as an Edm.String value after checking it, and
// returns its size by the service's formula: 4 bytes and 2 per code unit.
func appendStringValue(b *[]byte, name, s string) (int, error) {
	units := len(s) // of a plain string, which also needs no escaping
	plain := wire.Plain(s)
	if !plain {
		if !utf8.ValidString(s) {
			return 0, &ValidationError{Property: name, Rule: RuleInvalidUTF8}
		}
		units = wire.UTF16Len(s)
	}
	if units > MaxStringUTF16 {
		return 0, &ValidationError{Property: name, Rule: RuleStringTooLong, Detail: strconv.Itoa(units) + " UTF-16 code units"}
	}
	if plain {
		*b = append(*b, '"')
		*b = append(*b, s...)
		*b = append(*b, '"')
	} else {
		*b = wire.AppendString(*b, s)
	}
	return 4 + 2*units, nil
}

// appendTimeValue writes t, not the zero time, as an Edm.DateTime value
// after checking its range, and returns its size by the service's formula.
func appendTimeValue(b *[]byte, name string, t time.Time) (int, error) {
	t = t.UTC()
	if t.Before(minDateTime) || !t.Before(maxDateTime) {
		return 0, &ValidationError{Property: name, Rule: RuleDateTimeRange}
	}
	*b = append(*b, '"')
	*b = t.AppendFormat(*b, dateTimeLayout)
	*b = append(*b, '"')
	return 8, nil
}

// appendBinaryValue writes raw as an Edm.Binary value after checking its
// length, and returns its size by the service's formula.
func appendBinaryValue(b *[]byte, name string, raw []byte) (int, error) {
	if len(raw) > MaxBinary {
		return 0, &ValidationError{Property: name, Rule: RuleBinaryTooLarge, Detail: strconv.Itoa(len(raw)) + " bytes"}
	}
	*b = append(*b, '"')
	*b = base64.StdEncoding.AppendEncode(*b, raw)
	*b = append(*b, '"')
	return 4 + len(raw), nil
}

// appendGUIDValue writes g as an Edm.Guid value and returns its size.
func appendGUIDValue(b *[]byte, g GUID) int {
	*b = append(*b, '"')
	*b = g.AppendText(*b)
	*b = append(*b, '"')
	return 16
}
