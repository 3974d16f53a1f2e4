package codec

import (
	"bytes"
	"reflect"
	"strconv"

	"github.com/tablekit/tablekit/internal/wire"
)

// The plan of table.RawEntity is a dynamic plan (any property name may
// exist, none has a static type) whose properties stay the service's JSON:
// decoding copies the members but the keys, Timestamp and odata metadata,
// encoding writes them back after the keys. Tools that move entities
// without looking at them (copy, backup) skip building and re-encoding a
// map per entity.

// isRawEntityType recognises table.RawEntity.
func isRawEntityType(t reflect.Type) bool {
	return t.PkgPath() == "github.com/tablekit/tablekit/table" && t.Name() == "RawEntity" && t.Kind() == reflect.Struct
}

// buildRaw makes the plan of table.RawEntity: keys, ETag and Timestamp as
// fields, the properties a []byte field.
func buildRaw(t reflect.Type) (*Plan, error) {
	bad := func(why string) (*Plan, error) {
		return nil, &TypeError{Type: t.String(), Reason: why}
	}
	p := &Plan{Type: t, byName: map[string]int{}, pk: 0, rk: 1, dyn: &dynamic{raw: true}}
	for i, name := range []string{"PartitionKey", "RowKey"} {
		sf, ok := t.FieldByName(name)
		if !ok || sf.Type.Kind() != reflect.String {
			return bad("raw entity lacks string field " + name)
		}
		p.keys[i] = field{name: name, goName: name, index: sf.Index, kind: kString, typ: sf.Type, role: rolePK + role(i)}
	}
	sf, ok := t.FieldByName("Properties")
	if !ok || sf.Type.Kind() != reflect.Slice || sf.Type.Elem().Kind() != reflect.Uint8 {
		return bad("raw entity lacks Properties []byte")
	}
	p.dyn.props = sf.Index
	if sf, ok := t.FieldByName("ETag"); ok && sf.Type == etagType {
		p.etag = &field{name: "ETag", goName: "ETag", index: sf.Index, typ: sf.Type, role: roleETag}
	}
	if sf, ok := t.FieldByName("Timestamp"); ok && sf.Type == timeType {
		p.ts = &field{name: "Timestamp", goName: "Timestamp", index: sf.Index, kind: kTime, typ: sf.Type, role: roleTimestamp}
	}
	return p, nil
}

const annoSuffix = "@odata.type"

// annotations follows, member by member, which property the member
// before annotates (the service writes Name@odata.type just before Name).
type annotations struct{ last, scratch []byte }

// next takes the member called name and reports whether the member
// before it was its annotation.
func (a *annotations) next(name []byte) bool {
	was := bytes.Equal(a.last, name)
	a.scratch = a.scratch[:0]
	if base, ok := bytes.CutSuffix(name, []byte(annoSuffix)); ok {
		a.scratch = append(a.scratch, base...)
	}
	a.last, a.scratch = a.scratch, a.last
	return was
}

// rawStartSize is the first capacity of a RawEntity's properties read
// from a page: most entities are a kilobyte or two.
const rawStartSize = 2048

// decodeRaw reads an entity into a RawEntity: the keys, ETag and Timestamp
// into their fields, every other member, annotations included, copied as
// it is into one JSON object. The odata.* metadata (and Timestamp's
// annotation) are dropped: they are not properties. A member is copied
// as its bytes, from the end of the member before it (the comma and
// whitespace trimmed), so that names are not decoded and encoded again.
func (p *Plan) decodeRaw(data []byte, v reflect.Value, whole bool) (int, error) {
	s := wire.Scanner{Data: data}
	// Whole, data is the entity: its length bounds the properties. Read
	// where it lies in a page, data runs to the page's end, so start small
	// and let append grow (sizing by the page made every entity of a
	// 1,000-entity page allocate up to a megabyte).
	size := len(data)
	if !whole {
		size = min(size, rawStartSize)
	}
	props := make([]byte, 1, size)
	props[0] = '{'
	var annos annotations
	prevEnd := bytes.IndexByte(data, '{') + 1
	err := s.Object(func(name []byte) error {
		start := prevEnd
		defer func() { prevEnd = s.Pos }()
		var sys string
		switch string(name) {
		case "PartitionKey":
			sys = "PartitionKey"
		case "RowKey":
			sys = "RowKey"
		case "Timestamp":
			sys = "Timestamp"
		case "odata.etag":
			sys = "odata.etag"
		case "Timestamp" + annoSuffix:
			return s.Skip()
		}
		switch {
		case sys != "":
			t := token{name: sys}
			if s.Peek() == '"' {
				str, err := s.String()
				if err != nil {
					return err
				}
				t.kind, t.str = 's', string(str)
			} else if err := s.Skip(); err != nil {
				return err
			}
			_, err := p.decodeSystem(&t, v)
			return err
		case bytes.HasPrefix(name, []byte("odata.")):
			return s.Skip()
		}
		wasAnnotated := annos.next(name)
		switch c := s.Peek(); {
		case c == '{' || c == '[':
			return &DecodeError{Property: string(name), Reason: "a nested object or array is not a property value"}
		case c == '-' || (c >= '0' && c <= '9'):
			num, err := s.Number()
			if err != nil {
				return err
			}
			if !wasAnnotated && !isInt32(num) {
				if len(props) > 1 {
					props = append(props, ',')
				}
				props = appendRawNumber(props, string(name), num, false)
				return nil
			}
		default:
			if err := s.Skip(); err != nil {
				return err
			}
		}
		if len(props) > 1 {
			props = append(props, ',')
		}
		props = append(props, bytes.TrimLeft(data[start:s.Pos], " \t\r\n,")...)
		return nil
	})
	if err == nil && whole {
		err = s.End()
	}
	if err != nil {
		if _, ok := err.(*DecodeError); ok {
			return s.Pos, err
		}
		return s.Pos, &DecodeError{Reason: err.Error(), Err: err}
	}
	v.FieldByIndex(p.dyn.props).SetBytes(append(props, '}'))
	return s.Pos, nil
}

// appendRawNumber writes the member name: num. A number without an
// annotation just before it is typed by its form, as Entity reads it (see
// dynNumber), and gets the annotation that keeps that type when written
// back: a Double always (a whole Double such as 1.0 would be stored as an
// Int32 by a writer that reads JSON numbers as numbers), an Int64 for an
// integer beyond Int32's range, written as the string Edm.Int64 requires.
func appendRawNumber(dst []byte, name string, num []byte, annotated bool) []byte {
	typed := ""
	if !annotated && !isInt32(num) {
		typed = "Edm.Int64"
		if bytes.ContainsAny(num, ".eE") {
			typed = "Edm.Double"
		}
	}
	if typed != "" {
		dst = wire.AppendString(dst, name+annoSuffix)
		dst = append(dst, ':', '"')
		dst = append(dst, typed...)
		dst = append(dst, '"', ',')
	}
	dst = wire.AppendString(dst, name)
	dst = append(dst, ':')
	if typed == "Edm.Int64" {
		dst = append(dst, '"')
		dst = append(dst, num...)
		return append(dst, '"')
	}
	return append(dst, num...)
}

// encodeRaw is Encode for table.RawEntity: the keys, then the members of
// its Properties object as they are, after checking that it is an object
// of scalar members with valid property names (annotations beside them),
// at most MaxProperties of them. The entity size limit is left to the
// service: the raw form does not say each value's stored size.
func (p *Plan) encodeRaw(dst []byte, v reflect.Value) ([]byte, error) {
	pk, rk := p.Keys(v)
	start := len(dst)
	dst, _, err := appendKeys(dst, pk, rk)
	if err != nil {
		return dst, err
	}
	props := bytes.TrimSpace(v.FieldByIndex(p.dyn.props).Bytes())
	if len(props) == 0 || string(props) == "null" {
		return append(dst, '}'), nil
	}
	count, untyped, err := checkRaw(props)
	if err != nil {
		return dst[:start], err
	}
	if count == 0 {
		return append(dst, '}'), nil
	}
	dst = append(dst, ',')
	if !untyped {
		dst = append(dst, bytes.TrimSpace(props[1:len(props)-1])...)
		return append(dst, '}'), nil
	}
	// Written by hand: type its numbers by form, as decodeRaw does.
	s := wire.Scanner{Data: props}
	var annos annotations
	first := true
	err = s.Object(func(name []byte) error {
		if !first {
			dst = append(dst, ',')
		}
		first = false
		wasAnnotated := annos.next(name)
		n := string(name)
		if c := s.Peek(); c == '-' || (c >= '0' && c <= '9') {
			num, err := s.Number()
			dst = appendRawNumber(dst, n, num, wasAnnotated)
			return err
		}
		dst = wire.AppendString(dst, n)
		dst = append(dst, ':')
		start := s.Pos
		err := s.Skip()
		dst = append(dst, props[start:s.Pos]...)
		return err
	})
	if err != nil { // checkRaw read it whole
		return dst[:start], &ValidationError{Property: "(entity)", Rule: RuleMarshal, Detail: err.Error()}
	}
	return append(dst, '}'), nil
}

// checkRaw checks a RawEntity's Properties and counts its properties;
// untyped reports a number without an annotation whose form is not an
// Int32's, which the writer must annotate.
func checkRaw(props []byte) (count int, untyped bool, err error) {
	s := wire.Scanner{Data: props}
	var annos annotations
	err = s.Object(func(name []byte) error {
		prop, isAnno := bytes.CutSuffix(name, []byte(annoSuffix))
		if isAnno && s.Peek() != '"' {
			return &ValidationError{Property: string(name), Rule: RuleMarshal, Detail: "an annotation must be a string"}
		}
		if !isAnno {
			count++
		}
		if !plainName(prop) {
			if bad := wire.CheckPropertyName(string(prop)); bad != nil {
				return &ValidationError{Property: string(prop), Rule: RulePropertyName, Detail: bad.String()}
			}
		}
		wasAnnotated := annos.next(name)
		switch c := s.Peek(); {
		case c == '{' || c == '[':
			return &ValidationError{Property: string(name), Rule: RuleMarshal, Detail: "a nested object or array is not a property value"}
		case c == '-' || (c >= '0' && c <= '9'):
			num, err := s.Number()
			if err == nil && !wasAnnotated && !isInt32(num) {
				untyped = true
			}
			return err
		}
		return s.Skip()
	})
	if err == nil {
		err = s.End()
	}
	if err != nil {
		if _, ok := err.(*ValidationError); ok {
			return 0, false, err
		}
		return 0, false, &ValidationError{Property: "(entity)", Rule: RuleMarshal, Detail: "Properties is not a JSON object: " + err.Error()}
	}
	if count > MaxProperties {
		return 0, false, &ValidationError{Property: "(entity)", Rule: RuleTooManyProperties, Detail: strconv.Itoa(count) + " properties"}
	}
	return count, untyped, nil
}

// plainName reports an ASCII property name that passes
// wire.CheckPropertyName, without converting it to a string: letters,
// digits and '_', not starting with a digit, not a system property. Any
// other name goes through CheckPropertyName.
func plainName(name []byte) bool {
	if len(name) == 0 || len(name) > wire.MaxPropertyNameLen || wire.IsSystemProperty(string(name)) {
		return false
	}
	for i, c := range name {
		ok := c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (i > 0 && c >= '0' && c <= '9')
		if !ok {
			return false
		}
	}
	return true
}
