package codec

import (
	"errors"
	"reflect"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/internal/backend"
	"github.com/tablekit/tablekit/internal/wire"
)

// RuleDynamicType is the rule a table.Entity property value breaks when its
// Go type does not name exactly one EDM type.
const RuleDynamicType = "Go type has no exact EDM type (use string, bool, int32, int64, float64, time.Time, table.GUID or []byte)"

// dynamic is the part of a plan for table.Entity: where its property map
// is, and table.GUID's type (Types), which codec cannot import.
type dynamic struct {
	props []int
	guid  reflect.Type
	// makeGUID makes a guid from bytes (Types.MakeGUID), nil to convert
	// through reflection.
	makeGUID GUIDMaker
	raw      bool // table.RawEntity: properties kept as JSON (raw.go)
	// order is the last sorted list of names encodeDynamic wrote, never
	// changed once stored (see keep).
	order atomic.Pointer[[]string]
}

// The entities of a table mostly share one set of names. The last names
// encoded without an error are kept in order (order, keep): an entity with
// as many names is written in that order, which costs nothing beyond the
// lookup of each value, and each name passed wire.CheckPropertyName
// already; a name it lacks (errOtherNames) means other names, written
// again after a sort, as is an entity with any fault.

// errOtherNames reports an entity without one of the kept names.
var errOtherNames = errors.New("codec: not the kept names")

// sorted returns the names of props in order, sorted in scratch.
func sorted(props map[string]any, scratch []string) []string {
	names := scratch[:0]
	for name := range props {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// keep makes names, which encoded without an error, the kept order: a
// copy of the slice; the strings are the entity's, kept until the next
// change of names.
func (d *dynamic) keep(names []string) {
	c := slices.Clone(names)
	d.order.Store(&c)
}

// buildDynamic makes the plan of table.Entity. Its keys, ETag and Timestamp
// are fields like a struct's, so Keys and SetETag need no special case; its
// properties live in the map. guid is the type GUID values get on reads
// (Types.GUID; codec's own GUID when nil), made by makeGUID when not nil.
func buildDynamic(t, guid reflect.Type, makeGUID GUIDMaker) (*Plan, error) {
	if guid == nil {
		guid = guidType
	}
	bad := func(why string) (*Plan, error) {
		return nil, typeError(t.String(), "", why)
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
	p.dyn.guid, p.dyn.makeGUID = guid, makeGUID
	return p, nil
}

// namePool recycles the sorted name lists of encodeDynamic.
var namePool = sync.Pool{New: func() any { s := make([]string, 0, 32); return &s }}

// encodeDynamic is Encode for table.Entity. Names are written sorted, so
// equal entities encode to equal bytes (Table.Verify compares them). Each
// value is written by a switch on its Go type, through the same checks and
// writers as a struct field of that type, so a write of a table.Entity
// costs little more than a write of the struct it mirrors.
func (p *Plan) encodeDynamic(dst []byte, v reflect.Value, prof *backend.Profile) ([]byte, error) {
	pk, rk := p.Keys(v)
	props, _ := v.FieldByIndex(p.dyn.props).Interface().(map[string]any)
	return p.encodeEntity(dst, pk, rk, props, prof)
}

// AppendEntity is AppendJSON for a table.Entity given by its parts (p is
// its plan), which spares the caller a reflect.Value and the copy of the
// entity to the heap that making one costs.
func (p *Plan) AppendEntity(dst []byte, pk, rk string, props map[string]any, ts time.Time, prof *backend.Profile) ([]byte, error) {
	start := len(dst)
	dst, err := p.encodeEntity(dst, pk, rk, props, prof)
	if err != nil {
		return dst, err
	}
	return appendTimestamp(dst, start, ts)
}

// encodeEntity is encodeDynamic's work, on the entity's parts.
func (p *Plan) encodeEntity(dst []byte, pk, rk string, props map[string]any, prof *backend.Profile) ([]byte, error) {
	start := len(dst)
	dst, size, err := appendKeys(dst, prof, pk, rk)
	if err != nil {
		return dst, err
	}
	if len(props) > prof.MaxProperties {
		return dst[:start], checkTotals(prof, len(props), 0, 0)
	}
	var names []string
	done := false
	if last := p.dyn.order.Load(); last != nil && len(*last) == len(props) {
		mark, size0 := len(dst), size
		names = *last
		dst, size, err = p.appendDynamic(dst, prof, size, names, props, true)
		// Any error is found again in sorted order below, so that an
		// entity's first fault is the one reported whatever came before.
		if done = err == nil; !done {
			dst, size = dst[:mark], size0
		}
	}
	if !done {
		np := namePool.Get().(*[]string)
		names = sorted(props, *np)
		dst, size, err = p.appendDynamic(dst, prof, size, names, props, false)
		if err == nil {
			p.dyn.keep(names)
		}
		clear(names) // the pool must not keep the caller's strings alive
		*np = names[:0]
		namePool.Put(np)
	}
	if err == nil {
		err = checkTotals(prof, len(names), size, len(dst)-start+1)
	}
	if err != nil {
		return dst[:start], err
	}
	return append(dst, '}'), nil
}

// appendDynamic writes the properties names of props in that order and adds
// their share of the service's size formula to size. checked says the names
// are the kept order, each past wire.CheckPropertyName; props may lack one
// (errOtherNames).
func (p *Plan) appendDynamic(dst []byte, prof *backend.Profile, size int, names []string, props map[string]any, checked bool) ([]byte, int, error) {
	check := checkName
	if checked {
		check = checkNameLimits // wire.CheckPropertyName passed before
	}
	for _, name := range names {
		v, ok := props[name]
		if !ok && checked {
			return dst, size, errOtherNames
		}
		if err := check(prof, name); err != nil {
			return dst, size, err
		}
		var n int
		var err error
		switch x := v.(type) {
		case string:
			dst = wire.AppendMember(dst, name, "")
			n, err = appendStringValue(&dst, prof, name, x)
		case bool:
			dst = wire.AppendMember(dst, name, "")
			dst = strconv.AppendBool(dst, x)
			n = 1
		case int32:
			dst = wire.AppendMember(dst, name, "")
			dst = strconv.AppendInt(dst, int64(x), 10)
			n = 4
		case int64:
			dst = wire.AppendMember(dst, name, "Edm.Int64")
			dst = append(dst, '"')
			dst = strconv.AppendInt(dst, x, 10)
			dst = append(dst, '"')
			n = 8
		case float64:
			dst = wire.AppendMember(dst, name, "Edm.Double")
			dst = wire.AppendDouble(dst, x, 64)
			n = 8
		case []byte:
			dst = wire.AppendMember(dst, name, "Edm.Binary")
			n, err = appendBinaryValue(&dst, prof, name, x)
		case time.Time:
			if x.IsZero() {
				// Typed code leaves the zero time out; here it would vanish
				// on the way back, so it is refused like any out-of-range time.
				return dst, size, &tablekit.ValidationError{Index: -1, Field: name, Rule: RuleDateTimeRange, Detail: "the zero time.Time"}
			}
			dst = wire.AppendMember(dst, name, "Edm.DateTime")
			n, err = appendTimeValue(&dst, name, x)
		case nil:
			return dst, size, &tablekit.ValidationError{Index: -1, Field: name, Rule: RuleDynamicType, Detail: "nil; delete the key to leave the property out"}
		default:
			t := reflect.TypeOf(x)
			if t != p.dyn.guid {
				return dst, size, &tablekit.ValidationError{Index: -1, Field: name, Rule: RuleDynamicType, Detail: "Go type " + t.String()}
			}
			// table.GUID is a [16]byte (Types.GUID): copy it out without
			// converting, which would allocate.
			var g GUID
			reflect.Copy(reflect.ValueOf(&g).Elem(), reflect.ValueOf(x))
			dst = wire.AppendMember(dst, name, "Edm.Guid")
			n = appendGUIDValue(&dst, g)
		}
		if err != nil {
			return dst, size, err
		}
		size += 8 + 2*wire.UTF16Len(name) + n
	}
	return dst, size, nil
}
