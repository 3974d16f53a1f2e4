package codec

import (
	"encoding/base64"
	"reflect"
	"time"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/internal/backend"
)

// The EDM types that travel as JSON strings with an annotation. Under
// minimal metadata the service (and Azurite) annotates every one of them, so
// a string without an annotation is always a real Edm.String: reading it as
// a time, GUID or bytes would invent a type the data does not have.
func stringTyped(k kind) string {
	switch k {
	case kTime:
		return "Edm.DateTime"
	case kGUID, kGUIDText:
		return "Edm.Guid"
	case kBinary:
		return "Edm.Binary"
	}
	return ""
}

// setStringTyped decodes a DateTime, Guid or Binary property. The stored
// type must be the field's own; a field tagged "parse" instead takes only an
// Edm.String and parses its text, because that is how its writers store it.
func setStringTyped(f *field, t *token, fv reflect.Value) error {
	want := stringTyped(f.kind)
	if f.parse {
		want = "Edm.String"
	}
	got := t.typed
	if got == "" && t.kind == 's' {
		got = "Edm.String"
	}
	if t.kind != 's' || got != want {
		return mismatch(f, t, want)
	}
	// What is wrong is said of the annotated value, or of the text that a
	// "parse" field reads; made only for an error.
	what := func() string {
		if f.parse {
			return "Edm.String text (field tagged parse) is not "
		}
		return want + " value is not "
	}
	switch f.kind {
	case kTime:
		var ts time.Time
		if f.parse {
			var err error
			if ts, err = parseTime(t.str); err != nil {
				return &tablekit.DecodeError{Property: f.name, Reason: what() + "an RFC 3339 time", Err: err}
			}
		} else {
			var p string
			if ts, p = parseDateTime(t.str); p != "" {
				return &tablekit.DecodeError{Property: f.name, Reason: p}
			}
		}
		if p, ok := addrOf[time.Time](fv); ok {
			*p = ts
		} else {
			fv.Set(reflect.ValueOf(ts).Convert(fv.Type()))
		}
	case kGUID, kGUIDText:
		g, err := ParseGUID(t.str)
		if err != nil {
			return &tablekit.DecodeError{Property: f.name, Reason: what() + "a GUID", Err: err}
		}
		if f.kind == kGUIDText {
			fv.SetString(t.keep()) // aztables.EDMGUID keeps the stored text
		} else if p, ok := addrOf[GUID](fv); ok {
			*p = g
		} else if fv.CanAddr() {
			copy(fv.Bytes(), g[:]) // a type defined over [16]byte, table.GUID: no boxing
		} else {
			fv.Set(reflect.ValueOf(g).Convert(fv.Type()))
		}
	case kBinary:
		raw, err := base64.StdEncoding.AppendDecode(make([]byte, 0, base64.StdEncoding.DecodedLen(len(t.str))), []byte(t.str))
		if err != nil {
			return &tablekit.DecodeError{Property: f.name, Reason: what() + "base64", Err: err}
		}
		fv.SetBytes(raw)
	}
	return nil
}

// appendParsed writes a "parse" field as the Edm.String its other writers
// store, so that a read-modify-write never changes the property's type.
func appendParsed(b *[]byte, prof *backend.Profile, f *field, fv reflect.Value) (size int, skip bool, err error) {
	var text []byte
	switch f.kind {
	case kTime:
		t := fv.Convert(timeType).Interface().(time.Time)
		if t.IsZero() {
			return 0, true, nil
		}
		text = t.UTC().AppendFormat(nil, time.RFC3339Nano)
	case kGUID:
		text = fv.Convert(guidType).Interface().(GUID).AppendText(nil)
	case kGUIDText:
		g, err := ParseGUID(fv.String())
		if err != nil {
			return 0, false, &tablekit.ValidationError{Index: -1, Field: f.name, Rule: RuleMarshal, Detail: err.Error(), Err: err}
		}
		text = g.AppendText(nil)
	case kBinary:
		raw := fv.Bytes()
		if len(raw) > prof.MaxBinaryBytes {
			return 0, false, &tablekit.ValidationError{Index: -1, Field: f.name, Rule: RuleBinaryTooLarge, Detail: over(len(raw), prof.MaxBinaryBytes, "bytes")}
		}
		text = base64.StdEncoding.AppendEncode(nil, raw)
	}
	n, err := appendStringValue(b, prof, f.name, string(text))
	return n, false, err
}

// annotationOr is the EDM type name of k, or def for the kinds written
// without annotation.
func annotationOr(k kind, def string) string {
	if a := annotation(k); a != "" {
		return a
	}
	return def
}

// addrOf is fv's address as a *T when fv is a settable T: storing through
// it copies the value, where reflect.Value.Set would box it on the heap
// first.
func addrOf[T any](fv reflect.Value) (*T, bool) {
	if !fv.CanAddr() || !fv.CanInterface() {
		return nil, false
	}
	p, ok := fv.Addr().Interface().(*T)
	return p, ok
}
