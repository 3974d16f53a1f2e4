package codec

import (
	"encoding"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/internal/backend"
	"github.com/tablekit/tablekit/internal/wire"
)

// kind is how one Go field maps to an EDM type.
type kind uint8

const (
	kString   kind = iota + 1 // Edm.String
	kBool                     // Edm.Boolean
	kInt32                    // Edm.Int32 from any Go integer that fits
	kInt64                    // Edm.Int64 (JSON string + annotation)
	kDouble                   // Edm.Double (always annotated)
	kTime                     // Edm.DateTime
	kGUID                     // Edm.Guid
	kBinary                   // Edm.Binary
	kText                     // encoding.TextMarshaler -> Edm.String
	kJSON                     // any value, as a JSON string (tag option "json")
	kGUIDText                 // Edm.Guid held in a string (aztables.EDMGUID)
)

// role marks fields with a meaning beyond a property: the keys, and the
// ETag and Timestamp that are read but never written.
type role uint8

const (
	roleProp role = iota
	rolePK
	roleRK
	roleETag
	roleTimestamp
)

// field is one property of a plan.
type field struct {
	name      string // property name on the service
	goName    string
	index     []int // reflect path, through embedded structs
	kind      kind
	ptr       bool         // a pointer: nil means the property is absent
	typ       reflect.Type // the field's type (the element type for pointers)
	omitEmpty bool
	parse     bool // stored as Edm.String text (tag option "parse")
	role      role
	// Pre-encoded JSON fragments: `"Name":` and `"Name@odata.type":"Edm.X",`.
	nameJSON []byte
	annoJSON []byte
}

// Plan is the cached mapping between a struct type and an entity. It is
// never changed after build, so one plan serves every goroutine.
type Plan struct {
	Type   reflect.Type
	fields []field // properties in declaration order, keys excluded
	byName map[string]int
	pk, rk int // indexes into keys
	keys   [2]field
	etag   *field
	ts     *field
	dyn    *dynamic // table.Entity: properties in a map (dynamic.go)
	// size is the length of the last entity Marshal encoded: the
	// capacity of the next one's buffer, so that it rarely grows.
	size atomic.Int64
}

// plans caches plans and failures alike, so a type is analysed once per
// process; the reflect.Type values below are the types with a fixed kind.
var (
	plans         sync.Map // planKey -> *Plan or error
	timeType      = reflect.TypeFor[time.Time]()
	guidType      = reflect.TypeFor[GUID]()
	etagType      = reflect.TypeFor[azcore.ETag]()
	bytesType     = reflect.TypeFor[[]byte]()
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
	textUnmarshal = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// Types are the types of package table that the codec maps in their own
// way, passed in by table, which defines them (codec cannot import it):
// Entity keeps its properties in a map, RawEntity as the service's JSON,
// and GUID values are Edm.Guid. A nil field has no special mapping.
// MakeGUID makes a GUID of 16 bytes, without reflection: a table.Entity
// holds one per Edm.Guid property it reads. It must be comparable (Types
// keys the plans), as a struct{} type's value is.
type Types struct {
	Entity, RawEntity, GUID reflect.Type
	MakeGUID                GUIDMaker
}

// GUIDMaker makes a value of Types.GUID from its bytes.
type GUIDMaker interface{ MakeGUID(b [16]byte) any }

// planKey is what a plan depends on: the type and the special types.
type planKey struct {
	t     reflect.Type
	types Types
}

// For returns the plan of a struct type, computing it once; types says
// which types are table's Entity, RawEntity and GUID.
func For(t reflect.Type, types Types) (*Plan, error) {
	key := planKey{t, types}
	if v, ok := plans.Load(key); ok {
		if p, ok := v.(*Plan); ok {
			return p, nil
		}
		return nil, v.(error)
	}
	p, err := build(t, types)
	if err != nil {
		plans.Store(key, err)
		return nil, err
	}
	v, _ := plans.LoadOrStore(key, p)
	if p, ok := v.(*Plan); ok {
		return p, nil
	}
	return nil, v.(error)
}

// build makes the plan of t: its fields, keys, ETag and Timestamp, with
// every mapping rule checked once.
func build(t reflect.Type, types Types) (*Plan, error) {
	if t == types.Entity && t != nil {
		return buildDynamic(t, types.GUID, types.MakeGUID)
	}
	if t == types.RawEntity && t != nil {
		return buildRaw(t)
	}
	typeName := t.String()
	if t.Kind() != reflect.Struct {
		return nil, typeError(typeName, "", "an entity must be a struct, not "+t.Kind().String())
	}
	p := &Plan{Type: t, byName: map[string]int{}, pk: -1, rk: -1}
	var fields []field
	if err := collect(t, nil, typeName, types.GUID, &fields, map[reflect.Type]bool{}); err != nil {
		return nil, err
	}
	seen := map[string]string{}
	for _, f := range fields {
		if prev, dup := seen[f.name]; dup {
			return nil, typeError(typeName, f.goName, "property name "+f.name+" is also used by field "+prev)
		}
		seen[f.name] = f.goName
		switch f.role {
		case rolePK, roleRK:
			if f.kind != kString || f.ptr {
				return nil, typeError(typeName, f.goName, f.name+" must be a string")
			}
			if f.role == rolePK {
				p.keys[0] = f
				p.pk = 0
			} else {
				p.keys[1] = f
				p.rk = 1
			}
		case roleETag:
			ff := f
			p.etag = &ff
		case roleTimestamp:
			ff := f
			p.ts = &ff
		default:
			p.byName[f.name] = len(p.fields)
			p.fields = append(p.fields, f)
		}
	}
	if p.pk < 0 || p.rk < 0 {
		return nil, typeError(typeName, "", "needs string fields for PartitionKey and RowKey (named so, or tagged `table:\"PartitionKey\"` / `table:\"RowKey\"`)")
	}
	if max := backend.Lenient().MaxProperties; len(p.fields) > max {
		return nil, typeError(typeName, "", fmt.Sprintf("maps %d properties, more than an entity holds (%d); split it (wide entities pattern)", len(p.fields), max))
	}
	return p, nil
}

// collect walks the struct's fields, flattening untagged embedded structs as
// encoding/json does.
func collect(t reflect.Type, index []int, typeName string, guid reflect.Type, out *[]field, visiting map[reflect.Type]bool) error {
	if visiting[t] {
		return typeError(typeName, "", "embeds itself")
	}
	visiting[t] = true
	defer delete(visiting, t)
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		tag, hasTag := sf.Tag.Lookup("table")
		if tag == "-" {
			continue
		}
		idx := append(append([]int(nil), index...), i)
		if sf.Anonymous && !hasTag {
			ft := sf.Type
			if ft.Kind() == reflect.Struct && ft != timeType {
				if err := collect(ft, idx, typeName, guid, out, visiting); err != nil {
					return err
				}
				continue
			}
			if ft.Kind() == reflect.Pointer && ft.Elem().Kind() == reflect.Struct {
				return typeError(typeName, sf.Name, "embedded struct pointers are not supported; embed the struct by value")
			}
		}
		if !sf.IsExported() {
			continue
		}
		f, err := fieldOf(sf, idx, tag, typeName, guid)
		if err != nil {
			return err
		}
		*out = append(*out, f)
	}
	return nil
}

// fieldOf maps one struct field: its tag, role, name rule and EDM kind, and
// its JSON fragments encoded once for every later Encode.
func fieldOf(sf reflect.StructField, idx []int, tag, typeName string, guid reflect.Type) (field, error) {
	f := field{goName: sf.Name, index: idx, name: sf.Name}
	name, opts, _ := strings.Cut(tag, ",")
	if name != "" {
		f.name = name
	}
	asJSON := false
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		switch o {
		case "omitempty":
			f.omitEmpty = true
		case "json":
			asJSON = true
		case "parse":
			f.parse = true
		case "etag":
			f.role = roleETag
		case "timestamp":
			f.role = roleTimestamp
		case "":
		default:
			return f, typeError(typeName, sf.Name, "unknown tag option "+quote(o)+" (known: omitempty, json, parse, etag, timestamp)")
		}
	}
	switch {
	case f.role != roleProp:
	case f.name == "PartitionKey":
		f.role = rolePK
	case f.name == "RowKey":
		f.role = roleRK
	case f.name == "Timestamp" && isTimestampType(sf.Type):
		f.role = roleTimestamp
	case f.name == "ETag" && (sf.Type == etagType || sf.Type.Kind() == reflect.String):
		f.role = roleETag
	}
	t := sf.Type
	switch f.role {
	case roleETag:
		if t.Kind() != reflect.String {
			return f, typeError(typeName, sf.Name, "an etag field must be azcore.ETag or string")
		}
		f.typ = t
		return f, nil
	case roleTimestamp:
		if !isTimestampType(t) {
			return f, typeError(typeName, sf.Name, "a timestamp field must be time.Time or aztables.EDMDateTime")
		}
		f.typ, f.kind = t, kTime
		return f, nil
	}
	if f.role == roleProp {
		// The name rules of every backend; the backend's own are checked
		// when an entity is written to it.
		lenient := backend.Lenient()
		if err := checkName(&lenient, f.name); err != nil {
			return f, typeError(typeName, sf.Name, err.(*tablekit.ValidationError).Rule+" ("+err.(*tablekit.ValidationError).Detail+")")
		}
	}
	if t.Kind() == reflect.Pointer && !asJSON {
		f.ptr = true
		t = t.Elem()
	}
	f.typ = t
	k, reason := kindOf(t, asJSON, guid)
	if k == 0 {
		return f, typeError(typeName, sf.Name, reason)
	}
	f.kind = k
	if f.parse && stringTyped(k) == "" {
		return f, typeError(typeName, sf.Name, "tag option parse applies to time, GUID and []byte fields only")
	}
	f.nameJSON = wire.AppendString(nil, f.name)
	f.nameJSON = append(f.nameJSON, ':')
	if a := annotation(k); a != "" && !f.parse {
		f.annoJSON = wire.AppendString(nil, f.name+"@odata.type")
		f.annoJSON = append(f.annoJSON, ':')
		f.annoJSON = wire.AppendString(f.annoJSON, a)
		f.annoJSON = append(f.annoJSON, ',')
	}
	return f, nil
}

// kindOf chooses the EDM type of a Go type, or explains why there is none;
// guid is table.GUID's type (nil: none).
func kindOf(t reflect.Type, asJSON bool, guid reflect.Type) (kind, string) {
	if asJSON {
		return kJSON, ""
	}
	switch t {
	case timeType:
		return kTime, ""
	case guidType:
		return kGUID, ""
	case bytesType:
		return kBinary, ""
	}
	if t == guid && t != nil {
		return kGUID, ""
	}
	if k := wrapperKind(t); k != 0 {
		return k, ""
	}
	if reason := unsafeText(t); reason != "" {
		return 0, reason
	}
	if t.Implements(textMarshaler) && reflect.PointerTo(t).Implements(textUnmarshal) {
		return kText, ""
	}
	switch t.Kind() {
	case reflect.String:
		return kString, ""
	case reflect.Bool:
		return kBool, ""
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int, reflect.Uint8, reflect.Uint16:
		return kInt32, ""
	case reflect.Int64, reflect.Uint32, reflect.Uint, reflect.Uint64:
		return kInt64, ""
	case reflect.Float32, reflect.Float64:
		return kDouble, ""
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return kBinary, ""
		}
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map, reflect.Slice, reflect.Array:
		return 0, "type " + t.String() + " has no EDM type; tag it `table:\",json\"` to store it as a JSON string"
	}
	return 0, "type " + t.String() + " has no EDM type"
}

// annotation is the @odata.type a kind must carry: every kind whose JSON
// form alone would read back as another EDM type.
func annotation(k kind) string {
	switch k {
	case kInt64:
		return "Edm.Int64"
	case kDouble:
		return "Edm.Double"
	case kTime:
		return "Edm.DateTime"
	case kGUID, kGUIDText:
		return "Edm.Guid"
	case kBinary:
		return "Edm.Binary"
	}
	return ""
}

// quote shows a name in a message as JSON would.
func quote(s string) string { return string(wire.AppendString(nil, s)) }

// HasProperty reports whether name is a property (or key) of the plan.
func (p *Plan) HasProperty(name string) bool {
	if wire.IsSystemProperty(name) {
		return true
	}
	if p.dyn != nil {
		lenient := backend.Lenient()
		return checkName(&lenient, name) == nil // any property may exist
	}
	_, ok := p.byName[name]
	return ok
}

// SetETag stores etag in the plan's ETag field, if it has one.
func (p *Plan) SetETag(v reflect.Value, etag string) {
	if p.etag != nil {
		v.FieldByIndex(p.etag.index).SetString(etag)
	}
}

// SelectList returns the $select value for names (wire.SelectList); a name
// that is not a property of the plan is tablekit.ErrInvalid.
func (p *Plan) SelectList(names []string) (string, error) {
	s, err := wire.SelectList(names, p.HasProperty)
	if err != nil {
		return "", &tablekit.ValidationError{Operation: "select", Field: p.Type.String(), Index: -1, Rule: err.Error()}
	}
	return s, nil
}
