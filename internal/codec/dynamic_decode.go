package codec

import (
	"encoding/base64"
	"reflect"
	"strconv"
	"strings"

	"github.com/tablekit/tablekit/internal/wire"
)

// decodeDynamic is Decode for table.Entity: every property goes into the
// map as the one Go type of its EDM type, so writing the entity back never
// changes a stored type. Unannotated numbers follow the service and
// Azurite: an integer is Edm.Int32 (int64 beyond its range), a number with
// a '.' or an exponent is Edm.Double (Azurite writes 1.0 unannotated).
// A null is left out, as the service never stores one.
func (p *Plan) decodeDynamic(toks []token, v reflect.Value) error {
	pv := v.FieldByIndex(p.dyn.props)
	props, _ := pv.Interface().(map[string]any)
	if props == nil {
		props = make(map[string]any, len(toks))
		pv.Set(reflect.ValueOf(props))
	}
	for i := range toks {
		t := &toks[i]
		if system, err := p.decodeSystem(t, v); system || err != nil {
			if err != nil {
				return err
			}
			continue
		}
		// OData metadata and annotations are not properties.
		if strings.HasPrefix(t.name, "odata.") || strings.Contains(t.name, "@") || t.kind == 'z' {
			continue
		}
		x, err := p.dynDecode(t)
		if err != nil {
			return err
		}
		props[strings.Clone(t.name)] = x
	}
	return nil
}

// dynDecode returns one stored value as the Go type of its EDM type.
func (p *Plan) dynDecode(t *token) (any, error) {
	bad := func(reason string, err error) error {
		return &DecodeError{Property: strings.Clone(t.name), Reason: reason, Err: err}
	}
	switch t.kind {
	case 't', 'f':
		if t.typed != "" && t.typed != "Edm.Boolean" {
			return nil, bad("a JSON boolean annotated "+t.typed, nil)
		}
		return t.kind == 't', nil
	case 'n':
		return dynNumber(t, bad)
	case 's':
	default:
		return nil, bad("nested JSON has no EDM type", nil)
	}
	switch t.typed {
	case "", "Edm.String":
		return strings.Clone(t.str), nil
	case "Edm.Int64":
		n, err := strconv.ParseInt(t.str, 10, 64)
		if err != nil {
			return nil, bad("bad Edm.Int64", err)
		}
		return n, nil
	case "Edm.Double":
		x, ok := wire.ParseDouble(t.str)
		if !ok {
			return nil, bad("Edm.Double value is neither a number in range nor NaN, Infinity or -Infinity", nil)
		}
		return x, nil
	case "Edm.DateTime":
		ts, err := parseTime(t.str)
		if err != nil {
			return nil, bad(err.Error(), err)
		}
		return ts, nil
	case "Edm.Guid":
		g, err := ParseGUID(t.str)
		if err != nil {
			return nil, bad(err.Error(), err)
		}
		return reflect.ValueOf(g).Convert(p.dyn.guid).Interface(), nil
	case "Edm.Binary":
		raw, err := base64.StdEncoding.AppendDecode(make([]byte, 0, base64.StdEncoding.DecodedLen(len(t.str))), []byte(t.str))
		if err != nil {
			return nil, bad("bad base64", err)
		}
		return raw, nil
	}
	return nil, bad("unknown EDM type "+t.typed, nil)
}

// dynNumber reads a JSON number by its annotation or, without one, by its
// form (see decodeDynamic).
func dynNumber(t *token, bad func(string, error) error) (any, error) {
	typed := t.typed
	if typed == "" {
		typed = "Edm.Int32"
		if strings.ContainsAny(t.str, ".eE") {
			typed = "Edm.Double"
		}
	}
	switch typed {
	case "Edm.Int32", "Edm.Int64":
		n, err := strconv.ParseInt(t.str, 10, 64)
		if err != nil {
			return nil, bad("bad integer", err)
		}
		if typed == "Edm.Int32" && n == int64(int32(n)) {
			return int32(n), nil
		}
		return n, nil
	case "Edm.Double":
		x, err := strconv.ParseFloat(t.str, 64)
		if err != nil {
			return nil, bad("bad Edm.Double", err)
		}
		return x, nil
	}
	return nil, bad("a JSON number annotated "+typed, nil)
}
