package codec

import (
	"encoding/base64"
	"reflect"
	"strings"
	"time"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/internal/wire"
)

// decodeDynamic is Decode for table.Entity: every property goes into the
// map as the one Go type of its EDM type, so writing the entity back never
// changes a stored type. Unannotated numbers follow the service and
// Azurite: an integer is Edm.Int32 (int64 beyond its range), a number with
// a '.' or an exponent is Edm.Double (Azurite writes 1.0 unannotated).
// A null is left out, as the service never stores one. n, the members
// that may be properties, sizes a new map.
func (p *Plan) decodeDynamic(toks []token, n int, v reflect.Value) error {
	pv := v.FieldByIndex(p.dyn.props)
	props, _ := pv.Interface().(map[string]any)
	if props == nil {
		props = make(map[string]any, n)
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
		if t.meta || t.kind == 'z' {
			continue
		}
		x, err := p.dynDecode(t)
		if err != nil {
			return err
		}
		props[t.keepName()] = x
	}
	return nil
}

// dynDecode returns one stored value as the Go type of its EDM type: the
// annotated type, in its form and range (edm.go), or for a value without
// annotation the type of its JSON form (see decodeDynamic).
func (p *Plan) dynDecode(t *token) (any, error) {
	bad := func(reason string, err error) error {
		return &tablekit.DecodeError{Property: strings.Clone(t.name), Reason: reason, Err: err}
	}
	if t.kind == 'x' {
		return nil, bad("nested JSON has no EDM type", nil)
	}
	edm := t.typed
	if edm != "" {
		if pr := formProblem(edm, t.kind); pr != "" {
			return nil, bad(pr, nil)
		}
	} else {
		switch t.kind {
		case 's':
			edm = edmString
		case 't', 'f':
			edm = edmBoolean
		case 'n':
			var n int64
			var pr string
			edm, n, pr = numberValue(t.str)
			switch edm {
			case "":
				return nil, bad(pr, nil)
			case edmInt32:
				return int32(n), nil
			case edmInt64:
				return n, nil
			}
		}
	}
	var pr string
	switch edm {
	case edmString:
		return t.keep(), nil
	case edmBoolean:
		return t.kind == 't', nil
	case edmInt32:
		var n int32
		if n, pr = parseInt32(t.str); pr == "" {
			return n, nil
		}
	case edmInt64:
		var n int64
		if n, pr = parseInt64(t.str); pr == "" {
			return n, nil
		}
	case edmDouble:
		x, ok := parseNumber(t.str)
		if t.kind == 's' {
			x, ok = wire.ParseDouble(t.str)
		}
		if ok {
			return x, nil
		}
		pr = doubleProblem
	case edmDateTime:
		var ts time.Time
		if ts, pr = parseDateTime(t.str); pr == "" {
			return ts, nil
		}
	case edmGUID:
		g, err := ParseGUID(t.str)
		if err != nil {
			return nil, bad("Edm.Guid value is not a GUID", err)
		}
		switch {
		case p.dyn.guid == guidType:
			return g, nil
		case p.dyn.makeGUID != nil:
			return p.dyn.makeGUID.MakeGUID(g), nil
		}
		return reflect.ValueOf(g).Convert(p.dyn.guid).Interface(), nil
	case edmBinary:
		raw, err := base64.StdEncoding.AppendDecode(make([]byte, 0, base64.StdEncoding.DecodedLen(len(t.str))), []byte(t.str))
		if err != nil {
			return nil, bad("Edm.Binary value is not base64", err)
		}
		return raw, nil
	}
	return nil, bad(pr, nil)
}
