package codec

import (
	"bytes"
	"reflect"
	"strconv"
	"strings"

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

// decodeRaw reads an entity into a RawEntity: the keys, ETag and Timestamp
// into their fields, every other member, annotations included, copied as
// it is into one JSON object. The odata.* metadata (and Timestamp's
// annotation) are dropped: they are not properties.
func (p *Plan) decodeRaw(data []byte, v reflect.Value) error {
	s := wire.Scanner{Data: data}
	props := make([]byte, 1, len(data))
	props[0] = '{'
	err := s.Object(func(name []byte) error {
		switch n := string(name); {
		case n == "PartitionKey" || n == "RowKey" || n == "Timestamp" || n == "odata.etag":
			t := token{name: n}
			if c := s.Peek(); c == '"' {
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
		case strings.HasPrefix(n, "odata.") || n == "Timestamp"+annoSuffix:
			return s.Skip()
		}
		if c := s.Peek(); c == '{' || c == '[' {
			return &DecodeError{Property: string(name), Reason: "a nested object or array is not a property value"}
		}
		if len(props) > 1 {
			props = append(props, ',')
		}
		props = appendString(props, string(name))
		props = append(props, ':')
		start := s.Pos
		if err := s.Skip(); err != nil {
			return err
		}
		props = append(props, data[start:s.Pos]...)
		return nil
	})
	if err == nil {
		err = s.End()
	}
	if err != nil {
		if _, ok := err.(*DecodeError); ok {
			return err
		}
		return &DecodeError{Reason: err.Error(), Err: err}
	}
	v.FieldByIndex(p.dyn.props).SetBytes(append(props, '}'))
	return nil
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
	count, err := checkRaw(props)
	if err != nil {
		return dst[:start], err
	}
	if count > 0 {
		dst = append(dst, ',')
		dst = append(dst, bytes.TrimSpace(props[1:len(props)-1])...)
	}
	return append(dst, '}'), nil
}

// checkRaw checks a RawEntity's Properties and counts its properties.
func checkRaw(props []byte) (int, error) {
	s := wire.Scanner{Data: props}
	count := 0
	err := s.Object(func(name []byte) error {
		n := string(name)
		prop := n
		if base, ok := strings.CutSuffix(n, annoSuffix); ok {
			if s.Peek() != '"' {
				return &ValidationError{Property: n, Rule: RuleMarshal, Detail: "an annotation must be a string"}
			}
			prop = base
		} else {
			count++
		}
		if bad := wire.CheckPropertyName(prop); bad != nil {
			return &ValidationError{Property: prop, Rule: RulePropertyName, Detail: bad.String()}
		}
		if c := s.Peek(); c == '{' || c == '[' {
			return &ValidationError{Property: n, Rule: RuleMarshal, Detail: "a nested object or array is not a property value"}
		}
		return s.Skip()
	})
	if err == nil {
		err = s.End()
	}
	if err != nil {
		if _, ok := err.(*ValidationError); ok {
			return 0, err
		}
		return 0, &ValidationError{Property: "(entity)", Rule: RuleMarshal, Detail: "Properties is not a JSON object: " + err.Error()}
	}
	if count > MaxProperties {
		return 0, &ValidationError{Property: "(entity)", Rule: RuleTooManyProperties, Detail: strconv.Itoa(count) + " properties"}
	}
	return count, nil
}
