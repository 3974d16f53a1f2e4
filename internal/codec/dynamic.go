package codec

import (
	"reflect"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/tablekit/tablekit/internal/wire"
)

// RuleDynamicType is the rule a table.Entity property value breaks when its
// Go type does not name exactly one EDM type.
const RuleDynamicType = "Go type has no exact EDM type (use string, bool, int32, int64, float64, time.Time, table.GUID or []byte)"

// dynamic is the part of a plan for table.Entity: where its property map
// is, and table.GUID's type, which codec cannot import.
type dynamic struct {
	props []int
	guid  reflect.Type
}

// isEntityType recognises table.Entity, as isGUIDType recognises table.GUID.
func isEntityType(t reflect.Type) bool {
	return t.PkgPath() == "github.com/tablekit/tablekit/table" && t.Name() == "Entity" && t.Kind() == reflect.Struct
}

// buildDynamic makes the plan of table.Entity. Its keys, ETag and Timestamp
// are fields like a struct's, so Keys and SetETag need no special case; its
// properties live in the map. The blank [0]GUID field carries the GUID type.
func buildDynamic(t reflect.Type) (*Plan, error) {
	bad := func(why string) (*Plan, error) {
		return nil, &TypeError{Type: t.String(), Reason: why}
	}
	p := &Plan{Type: t, byName: map[string]int{}, pk: 0, rk: 1, dyn: &dynamic{}}
	for i, name := range []string{"PartitionKey", "RowKey"} {
		sf, ok := t.FieldByName(name)
		if !ok || sf.Type.Kind() != reflect.String {
			return bad("dynamic entity lacks string field " + name)
		}
		p.keys[i] = field{name: name, goName: name, index: sf.Index, kind: kString, typ: sf.Type, role: rolePK + role(i)}
	}
	if sf, ok := t.FieldByName("Properties"); ok && sf.Type == reflect.TypeFor[map[string]any]() {
		p.dyn.props = sf.Index
	} else {
		return bad("dynamic entity lacks Properties map[string]any")
	}
	if sf, ok := t.FieldByName("ETag"); ok && sf.Type == etagType {
		p.etag = &field{name: "ETag", goName: "ETag", index: sf.Index, typ: sf.Type, role: roleETag}
	}
	if sf, ok := t.FieldByName("Timestamp"); ok && sf.Type == timeType {
		p.ts = &field{name: "Timestamp", goName: "Timestamp", index: sf.Index, kind: kTime, typ: sf.Type, role: roleTimestamp}
	}
	for i := 0; i < t.NumField(); i++ {
		if ft := t.Field(i).Type; ft.Kind() == reflect.Array && ft.Len() == 0 && isGUIDType(ft.Elem()) {
			p.dyn.guid = ft.Elem()
		}
	}
	if p.dyn.guid == nil {
		return bad("dynamic entity lacks its [0]GUID marker")
	}
	return p, nil
}

// namePool recycles the sorted name lists of encodeDynamic.
var namePool = sync.Pool{New: func() any { s := make([]string, 0, 32); return &s }}

// encodeDynamic is Encode for table.Entity. Names are written sorted, so
// equal entities encode to equal bytes (Table.Verify compares them).
func (p *Plan) encodeDynamic(dst []byte, v reflect.Value) ([]byte, error) {
	pk, rk := p.Keys(v)
	start := len(dst)
	dst, size, err := appendKeys(dst, pk, rk)
	if err != nil {
		return dst, err
	}
	props, _ := v.FieldByIndex(p.dyn.props).Interface().(map[string]any)
	np := namePool.Get().(*[]string)
	names := (*np)[:0]
	defer func() { *np = names[:0]; namePool.Put(np) }()
	for name := range props {
		names = append(names, name)
	}
	slices.Sort(names)
	if len(names) > MaxProperties {
		return dst[:start], &ValidationError{Property: "(entity)", Rule: RuleTooManyProperties, Detail: strconv.Itoa(len(names)) + " properties"}
	}
	for _, name := range names {
		if bad := wire.CheckPropertyName(name); bad != nil {
			return dst[:start], &ValidationError{Property: name, Rule: RulePropertyName, Detail: bad.String()}
		}
		f := field{name: name}
		fv, err := p.dynValue(&f, props[name])
		if err != nil {
			return dst[:start], err
		}
		dst = append(dst, ',')
		if a := annotation(f.kind); a != "" {
			dst = appendString(dst, name+"@odata.type")
			dst = append(dst, ':')
			dst = appendString(dst, a)
			dst = append(dst, ',')
		}
		dst = appendString(dst, name)
		dst = append(dst, ':')
		n, _, err := appendValue(&dst, &f, fv)
		if err != nil {
			return dst[:start], err
		}
		size += 8 + 2*wire.UTF16Len(name) + n
	}
	if err := checkTotals(len(names), size); err != nil {
		return dst[:start], err
	}
	return append(dst, '}'), nil
}

// dynValue chooses the EDM kind of one property value by its Go type and
// returns it as appendValue takes it, so both paths share every value rule.
// Only types that name one EDM type exactly are accepted: an int or a
// float32 would not read back as itself.
func (p *Plan) dynValue(f *field, x any) (reflect.Value, error) {
	switch x := x.(type) {
	case string:
		f.kind = kString
	case bool:
		f.kind = kBool
	case int32:
		f.kind = kInt32
	case int64:
		f.kind = kInt64
	case float64:
		f.kind = kDouble
	case []byte:
		f.kind = kBinary
	case time.Time:
		if x.IsZero() {
			// Typed code leaves the zero time out; here it would vanish
			// on the way back, so it is refused like any out-of-range time.
			return reflect.Value{}, &ValidationError{Property: f.name, Rule: RuleDateTimeRange, Detail: "the zero time.Time"}
		}
		f.kind = kTime
	case nil:
		return reflect.Value{}, &ValidationError{Property: f.name, Rule: RuleDynamicType, Detail: "nil; delete the key to leave the property out"}
	default:
		if reflect.TypeOf(x) != p.dyn.guid {
			return reflect.Value{}, &ValidationError{Property: f.name, Rule: RuleDynamicType, Detail: "Go type " + reflect.TypeOf(x).String()}
		}
		f.kind = kGUID
	}
	return reflect.ValueOf(x), nil
}
