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

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/internal/backend"
	"github.com/tablekit/tablekit/internal/wire"
)

// Keys returns the PartitionKey and RowKey of v, a value of the plan's type.
func (p *Plan) Keys(v reflect.Value) (pk, rk string) {
	return v.FieldByIndex(p.keys[0].index).String(), v.FieldByIndex(p.keys[1].index).String()
}

// Encode appends the entity's JSON (with @odata.type annotations where the
// JSON type is ambiguous) to dst, validating every rule of the backend
// whose profile is prof first. v is a value of the plan's type. The ETag
// and Timestamp fields are never sent.
func (p *Plan) Encode(dst []byte, v reflect.Value, prof *backend.Profile) ([]byte, error) {
	if p.dyn != nil && p.dyn.raw {
		return p.encodeRaw(dst, v, prof)
	}
	if p.dyn != nil {
		return p.encodeDynamic(dst, v, prof)
	}
	pk, rk := p.Keys(v)
	start := len(dst)
	dst, size, err := appendKeys(dst, prof, pk, rk)
	if err != nil {
		return dst, err
	}
	// The names were checked when the plan was made (wire.CheckPropertyName
	// and backend.Lenient); the backend's own rules are checked per name
	// written, as a name that is nil or empty is not sent.
	reserved := prof.HasReserved()
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
		n, skip, err := appendValue(&dst, prof, f, fv)
		if err != nil {
			return dst[:start], err
		}
		if skip {
			dst = dst[:mark]
			continue
		}
		if len(f.name) > prof.MaxPropertyName || reserved && prof.Reserved(f.name) {
			return dst[:start], checkNameLimits(prof, f.name)
		}
		count++
		size += 8 + 2*wire.UTF16Len(f.name) + n
	}
	if err := checkTotals(prof, count, size, len(dst)-start+1); err != nil {
		return dst[:start], err
	}
	return append(dst, '}'), nil
}

// Marshal is Encode into a new buffer, sized by the entities encoded before.
func (p *Plan) Marshal(v reflect.Value, prof *backend.Profile) ([]byte, error) {
	n := p.size.Load()
	dst, err := p.Encode(make([]byte, 0, max(256, n+n/8)), v, prof)
	if err == nil && len(dst) <= maxSizeHint {
		p.size.Store(int64(len(dst)))
	}
	return dst, err
}

// AppendJSON appends the entity v to dst as Encode writes it, with its
// Timestamp (when the type has one and it is set) after the properties,
// annotated as Edm.DateTime: the form a read returns, which Decode reads
// back. Export writes its JSON lines so, into one reused buffer.
func (p *Plan) AppendJSON(dst []byte, v reflect.Value, prof *backend.Profile) ([]byte, error) {
	start := len(dst)
	dst, err := p.Encode(dst, v, prof)
	if err != nil || p.ts == nil {
		return dst, err
	}
	fv := v.FieldByIndex(p.ts.index)
	var ts time.Time
	if tp, ok := addrOf[time.Time](fv); ok {
		ts = *tp
	} else if ts, ok = fv.Interface().(time.Time); !ok {
		return dst, nil
	}
	return appendTimestamp(dst, start, ts)
}

// appendTimestamp adds ts, unless zero, to the encoded entity that begins
// at dst[start] (the entity alone is kept on an error).
func appendTimestamp(dst []byte, start int, ts time.Time) ([]byte, error) {
	if ts.IsZero() {
		return dst, nil
	}
	if u := ts.UTC(); u.Before(minDateTime) || !u.Before(maxDateTime) {
		return dst[:start], &tablekit.ValidationError{Index: -1, Field: "Timestamp", Rule: RuleDateTimeRange}
	}
	dst = append(dst[:len(dst)-1], `,"Timestamp@odata.type":"Edm.DateTime","Timestamp":"`...)
	dst = wire.AppendDateTime(dst, ts)
	return append(dst, '"', '}'), nil
}

// maxSizeHint keeps one huge entity from sizing every later buffer.
const maxSizeHint = 64 << 10

// appendKeys validates the keys and opens the entity's JSON with them. It
// returns their share of Table Storage's documented size formula: 4 bytes
// and the keys in UTF-16 (each property adds 8 bytes, its name in UTF-16
// and its value's size).
func appendKeys(dst []byte, prof *backend.Profile, pk, rk string) ([]byte, int, error) {
	if pk != "" && rk != "" && wire.PlainKey(pk) && wire.PlainKey(rk) && prof.PartitionKey.Fits(pk) && prof.RowKey.Fits(rk) {
		// What the checks below pass and write, known from one pass each.
		dst = append(dst, `{"PartitionKey":"`...)
		dst = append(dst, pk...)
		dst = append(dst, `","RowKey":"`...)
		dst = append(dst, rk...)
		dst = append(dst, '"')
		return dst, 4 + 2*(len(pk)+len(rk)), nil
	}
	return appendKeysChecked(dst, prof, pk, rk)
}

// appendKeysChecked is appendKeys for any keys, each rule checked apart.
func appendKeysChecked(dst []byte, prof *backend.Profile, pk, rk string) ([]byte, int, error) {
	if err := ValidateKey("PartitionKey", pk, prof.PartitionKey); err != nil {
		return dst, 0, err
	}
	if err := ValidateKey("RowKey", rk, prof.RowKey); err != nil {
		return dst, 0, err
	}
	dst = append(dst, `{"PartitionKey":`...)
	dst = wire.AppendString(dst, pk)
	dst = append(dst, `,"RowKey":`...)
	dst = wire.AppendString(dst, rk)
	return dst, 4 + 2*(wire.UTF16Len(pk)+wire.UTF16Len(rk)), nil
}

// appendValue writes one value and returns its size by the service's formula.
// skip reports a value that is not stored at all (the zero time.Time).
func appendValue(dst *[]byte, prof *backend.Profile, f *field, fv reflect.Value) (size int, skip bool, err error) {
	if f.parse {
		return appendParsed(dst, prof, f, fv)
	}
	*dst, size, skip, err = appendKind(*dst, prof, f, fv)
	return size, skip, err
}

// appendKind is appendValue for a value written by its Go kind.
func appendKind(b []byte, prof *backend.Profile, f *field, fv reflect.Value) ([]byte, int, bool, error) {
	switch f.kind {
	case kString:
		n, err := appendStringValue(&b, prof, f.name, fv.String())
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
			return b, 0, false, &tablekit.ValidationError{Index: -1, Field: f.name, Rule: RuleInt32Range, Detail: "use int64 for Edm.Int64"}
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
				return b, 0, false, &tablekit.ValidationError{Index: -1, Field: f.name, Rule: RuleInt64Range}
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
			return b, 0, false, &tablekit.ValidationError{Index: -1, Field: f.name, Rule: RuleMarshal, Detail: err.Error(), Err: err}
		}
		b = append(b, '"')
		b = g.AppendText(b)
		b = append(b, '"')
		return b, 16, false, nil
	case kBinary:
		n, err := appendBinaryValue(&b, prof, f.name, fv.Bytes())
		return b, n, false, err
	case kText:
		tm, ok := fv.Interface().(encoding.TextMarshaler)
		if !ok {
			return b, 0, false, &tablekit.ValidationError{Index: -1, Field: f.name, Rule: RuleMarshal, Detail: "not a TextMarshaler"}
		}
		text, err := tm.MarshalText()
		if err != nil {
			return b, 0, false, &tablekit.ValidationError{Index: -1, Field: f.name, Rule: RuleMarshal, Detail: err.Error(), Err: err}
		}
		n, err := appendStringValue(&b, prof, f.name, string(text))
		return b, n, false, err
	case kJSON:
		raw, err := json.Marshal(fv.Interface())
		if err != nil {
			return b, 0, false, &tablekit.ValidationError{Index: -1, Field: f.name, Rule: RuleMarshal, Detail: err.Error(), Err: err}
		}
		n, err := appendStringValue(&b, prof, f.name, string(raw))
		return b, n, false, err
	}
	return b, 0, false, &tablekit.ValidationError{Index: -1, Field: f.name, Rule: RuleMarshal, Detail: "unsupported kind"}
}

// appendStringValue writes s as an Edm.String value after checking it
// against the backend's limit, and returns its size by Table Storage's
// formula: 4 bytes and 2 per code unit.
func appendStringValue(b *[]byte, prof *backend.Profile, name, s string) (int, error) {
	units := len(s) // of a plain string, which also needs no escaping
	pre := wire.PlainPrefix(s)
	plain := pre == len(s)
	if !plain {
		// Only the rest after the plain prefix needs checking and counting.
		if !utf8.ValidString(s[pre:]) {
			return 0, &tablekit.ValidationError{Index: -1, Field: name, Rule: RuleInvalidUTF8}
		}
		units = pre + wire.UTF16Len(s[pre:])
	}
	if lim := prof.MaxString; len(s) > lim.Max && !lim.Fits(s) {
		return 0, &tablekit.ValidationError{Index: -1, Field: name, Rule: RuleStringTooLong, Detail: over(lim.Len(s), lim.Max, lim.Unit.String())}
	}
	if plain {
		*b = append(*b, '"')
		*b = append(*b, s...)
		*b = append(*b, '"')
	} else {
		*b = wire.AppendStringAfter(*b, s, pre)
	}
	return 4 + 2*units, nil
}

// appendTimeValue writes t, not the zero time, as an Edm.DateTime value
// after checking its range, and returns its size by the service's formula.
func appendTimeValue(b *[]byte, name string, t time.Time) (int, error) {
	t = t.UTC()
	if t.Before(minDateTime) || !t.Before(maxDateTime) {
		return 0, &tablekit.ValidationError{Index: -1, Field: name, Rule: RuleDateTimeRange}
	}
	*b = append(*b, '"')
	*b = wire.AppendDateTime(*b, t)
	*b = append(*b, '"')
	return 8, nil
}

// appendBinaryValue writes raw as an Edm.Binary value after checking its
// length against the backend's limit, and returns its size by Table
// Storage's formula.
func appendBinaryValue(b *[]byte, prof *backend.Profile, name string, raw []byte) (int, error) {
	if len(raw) > prof.MaxBinaryBytes {
		return 0, &tablekit.ValidationError{Index: -1, Field: name, Rule: RuleBinaryTooLarge, Detail: over(len(raw), prof.MaxBinaryBytes, "bytes")}
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
