package codec

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/internal/wire"
)

// token is one member of a flat JSON object, as found in the input.
type token struct {
	name  string
	str   string // unescaped string value, or the number's text
	kind  byte   // 's' string, 'n' number, 't'/'f' bool, 'z' null, 'x' object or array
	typed string // the value of name@odata.type, when present
	// shared: str is a substring of the entity's one copy that may be
	// kept as it is (see keepShared), rather than cloned.
	shared bool
	// meta: for a table.Entity, OData metadata or an annotation, not a
	// property (keepShared tells, decodeDynamic skips it).
	meta  bool
	field int // the plan's field of a struct's member, -1 for none (keepShared)
	// While parsing: where name and str lie in the input (off -1: set
	// already, an unescaped copy).
	nameAt, strAt span
}

type span struct{ off, n int }

// parsing is the state of parsing one entity: its tokens and the scanner,
// with its scratch space for unescaped strings. Neither leaves decode (the
// strings a token holds are copies), so parsingPool recycles them:
// decoding is per entity, and a page holds up to 1,000 of them.
type parsing struct {
	toks []token
	s    wire.Scanner
	// The last entity decoded with plan: its members' names in order and
	// their fields (-1 for none). The service writes every entity's
	// members in the same order, so a member is usually found where the
	// last entity had it, by one comparison instead of a map lookup. The
	// names are the plan's own or copies, so that nothing here keeps an
	// entity alive.
	plan  *Plan
	names []string
	order []int
}

var parsingPool = sync.Pool{New: func() any { return &parsing{toks: make([]token, 0, 32)} }}

// Decode parses one entity (a flat JSON object as the service returns it)
// into v, which must be an addressable value of the plan's type. Properties
// the type does not have are ignored; fields with no property are left as
// they are. It never panics on malformed input.
func (p *Plan) Decode(data []byte, v reflect.Value) error {
	_, err := p.decode(data, v, true)
	return err
}

// DecodeAt is Decode of the entity at the start of data, followed by
// anything (the rest of a query page): it returns the length the entity
// took, so that a page is decoded where it lies, in one pass.
func (p *Plan) DecodeAt(data []byte, v reflect.Value) (int, error) {
	return p.decode(data, v, false)
}

// decode decodes the entity at the start of data; whole requires that
// nothing but whitespace follows it.
func (p *Plan) decode(data []byte, v reflect.Value, whole bool) (int, error) {
	if p.dyn != nil && p.dyn.raw {
		return p.decodeRaw(data, v, whole)
	}
	ps := parsingPool.Get().(*parsing)
	toks := ps.toks[:0]
	defer func() { ps.toks = toks[:0]; ps.s.Reset(nil); parsingPool.Put(ps) }()
	ps.s.Reset(data)
	toks, n, err := parseObject(&ps.s, toks, whole)
	if err != nil {
		return n, err
	}
	return n, p.decodeTokens(ps, toks, n, v)
}

// decodeTokens stores an entity's members, of size bytes of JSON, in v.
func (p *Plan) decodeTokens(ps *parsing, toks []token, size int, v reflect.Value) error {
	// Attach annotations to their properties.
	for i := range toks {
		t := &toks[i]
		if base, ok := strings.CutSuffix(t.name, "@odata.type"); ok {
			// The service writes the annotation just before its value.
			if i+1 < len(toks) && toks[i+1].name == base {
				toks[i+1].typed = t.str
				continue
			}
			for j := range toks {
				if toks[j].name == base {
					toks[j].typed = t.str
					break
				}
			}
		}
	}
	props := p.keepShared(ps, toks, size)
	if p.dyn != nil {
		return p.decodeDynamic(toks, props, v)
	}
	for i := range toks {
		t := &toks[i]
		if system, err := p.decodeSystem(t, v); system || err != nil {
			if err != nil {
				return err
			}
			continue
		}
		if t.field < 0 {
			continue
		}
		f := &p.fields[t.field]
		if err := setField(f, t, v.FieldByIndex(f.index)); err != nil {
			return err
		}
	}
	return nil
}

// keepShared finds the struct field of each member (one lookup for both
// passes) and marks the entity's strings to be kept as substrings of its
// one copy, with no allocation of their own, when what is kept (the
// strings stored, and a table.Entity's names) is at least half of the
// entity: a value kept then holds at most twice its bytes alive. Otherwise
// each string kept is cloned, so that a small field kept from a large
// entity does not hold the rest of it. For a table.Entity it returns the
// number of members that may be properties, which sizes its map.
func (p *Plan) keepShared(ps *parsing, toks []token, size int) (props int) {
	kept := 0
	if ps.plan != p {
		ps.plan, ps.names, ps.order = p, ps.names[:0], ps.order[:0]
	}
	for i := range toks {
		t := &toks[i]
		if p.dyn != nil {
			if t.meta = isMetadata(t.name); !t.meta {
				if t.kind != 'z' && t.name != "PartitionKey" && t.name != "RowKey" && t.name != "Timestamp" {
					props++
				}
				kept += len(t.name)
				if t.kind == 's' && (t.typed == "" || t.typed == edmString) {
					kept += len(t.str)
				}
			}
			continue
		}
		t.field = -1
		switch t.name {
		case "PartitionKey", "RowKey":
			kept += len(t.str)
			continue
		case "odata.etag":
			if p.etag != nil {
				kept += len(t.str)
			}
			continue
		}
		if idx := p.fieldOf(ps, i, t.name); idx >= 0 {
			t.field = idx
			if k := p.fields[idx].kind; t.kind == 's' && (k == kString || k == kGUIDText) {
				kept += len(t.str)
			}
		}
	}
	share := 2*kept >= size
	for i := range toks {
		toks[i].shared = share
	}
	return props
}

// fieldOf is the field of the entity's ith member, named name, or -1:
// found where the last entity decoded with the plan had it when it has the
// same name there (see parsing), else looked up and remembered.
func (p *Plan) fieldOf(ps *parsing, i int, name string) int {
	if i < len(ps.names) && ps.names[i] == name {
		return ps.order[i]
	}
	idx, ok := p.byName[name]
	known := name
	if ok {
		known = p.fields[idx].name
	} else {
		idx, known = -1, strings.Clone(name)
	}
	for len(ps.names) <= i { // members before it that are not looked up
		ps.names, ps.order = append(ps.names, ""), append(ps.order, -1)
	}
	ps.names[i], ps.order[i] = known, idx
	return idx
}

// keep is a string value to store: shared, or a clone (see keepShared).
func (t *token) keep() string {
	if t.shared {
		return t.str
	}
	return strings.Clone(t.str)
}

// keepName is keep for a member's name (a table.Entity's key).
func (t *token) keepName() string {
	if t.shared {
		return t.name
	}
	return strings.Clone(t.name)
}

// isMetadata reports OData metadata and annotations, which are not
// properties.
func isMetadata(name string) bool {
	return strings.HasPrefix(name, "odata.") || strings.IndexByte(name, '@') >= 0
}

// setKey stores a key; keys are always strings on the service.
func setKey(f *field, t *token, v reflect.Value) error {
	if t.kind != 's' {
		return &tablekit.DecodeError{Property: f.name, Reason: "key is not a string"}
	}
	v.FieldByIndex(f.index).SetString(t.keep())
	return nil
}

// setTimestamp stores the Timestamp text s in v's Timestamp field, if the
// plan has one. It keeps none of s.
func (p *Plan) setTimestamp(v reflect.Value, s string) error {
	if p.ts == nil {
		return nil
	}
	ts, err := parseTime(s)
	if err != nil {
		return &tablekit.DecodeError{Property: "Timestamp", Reason: err.Error(), Err: err}
	}
	if fv := v.FieldByIndex(p.ts.index); !setTime(fv, ts) {
		fv.Set(reflect.ValueOf(ts).Convert(fv.Type()))
	}
	return nil
}

// setTime stores ts through fv's address, with no boxing, when it has one.
func setTime(fv reflect.Value, ts time.Time) bool {
	p, ok := addrOf[time.Time](fv)
	if ok {
		*p = ts
	}
	return ok
}

// mismatch reports a stored value whose EDM type the field cannot take,
// naming both types but not the value.
func mismatch(f *field, t *token, want string) error {
	got := t.typed
	if got == "" {
		switch t.kind {
		case 's':
			got = edmString
		case 'n':
			got, _ = numberType(t.str)
			got += " (a number without annotation, typed by its form)"
		case 't', 'f':
			got = edmBoolean
		default:
			got = jsonKind(t.kind)
		}
	}
	reason := "stored as " + got + ", field " + f.goName + " (" + f.typ.String() + ") wants " + want
	if got == edmString && stringTyped(f.kind) != "" && !f.parse {
		reason += "; tag the field `table:\",parse\"` to parse the text"
	}
	return &tablekit.DecodeError{Property: f.name, Reason: reason}
}

// setField stores one property in its field. A null clears the field; a
// value is accepted when its EDM type (annotated or, for a number without
// annotation, implied by its form) can be held by the field without loss,
// and when it is in its type's form and range (edm.go).
func setField(f *field, t *token, fv reflect.Value) error {
	if t.kind == 'z' {
		fv.SetZero()
		return nil
	}
	if t.typed != "" {
		if p := formProblem(t.typed, t.kind); p != "" {
			return &tablekit.DecodeError{Property: f.name, Reason: p}
		}
	}
	if f.ptr {
		if fv.IsNil() {
			fv.Set(reflect.New(f.typ))
		}
		fv = fv.Elem()
	}
	switch f.kind {
	case kString:
		if t.kind != 's' || (t.typed != "" && t.typed != edmString) {
			return mismatch(f, t, edmString)
		}
		fv.SetString(t.keep())
	case kBool:
		if t.kind != 't' && t.kind != 'f' {
			return mismatch(f, t, edmBoolean)
		}
		fv.SetBool(t.kind == 't')
	case kInt32, kInt64:
		return setInteger(f, t, fv)
	case kDouble:
		return setDouble(f, t, fv)
	case kTime, kGUID, kGUIDText, kBinary:
		return setStringTyped(f, t, fv)
	case kText:
		if t.kind != 's' || (t.typed != "" && t.typed != edmString) {
			return mismatch(f, t, edmString)
		}
		u, ok := fv.Addr().Interface().(encoding.TextUnmarshaler)
		if !ok {
			return &tablekit.DecodeError{Property: f.name, Reason: "field is not a TextUnmarshaler"}
		}
		if err := u.UnmarshalText([]byte(t.str)); err != nil {
			return &tablekit.DecodeError{Property: f.name, Reason: "UnmarshalText: " + err.Error(), Err: err}
		}
	case kJSON:
		if t.kind != 's' || (t.typed != "" && t.typed != edmString) {
			return mismatch(f, t, "a JSON string (Edm.String)")
		}
		if err := json.Unmarshal([]byte(t.str), fv.Addr().Interface()); err != nil {
			return &tablekit.DecodeError{Property: f.name, Reason: "json: " + err.Error(), Err: err}
		}
	}
	return nil
}

// setInteger stores an Int32 in any integer field and an Int64 in a field
// mapped to Edm.Int64; an Int64 never narrows into an Int32 field (a
// rewrite would change its type). The Go field's own range is checked too.
func setInteger(f *field, t *token, fv reflect.Value) error {
	var n int64
	var edm, p string
	switch {
	case t.typed == "" && t.kind == 'n':
		edm, n, p = numberValue(t.str) // typed by its form
	case t.typed == edmInt32:
		var n32 int32
		n32, p = parseInt32(t.str)
		edm, n = edmInt32, int64(n32)
	case t.typed == edmInt64 && f.kind == kInt64:
		edm = edmInt64
		n, p = parseInt64(t.str)
	}
	switch {
	case p != "":
		return &tablekit.DecodeError{Property: f.name, Reason: p}
	case edm != edmInt32 && (edm != edmInt64 || f.kind != kInt64):
		return mismatch(f, t, annotationOr(f.kind, edmInt32))
	}
	if fv.CanInt() {
		if fv.OverflowInt(n) {
			return &tablekit.DecodeError{Property: f.name, Reason: edm + " value does not fit field " + f.goName + " (" + fv.Type().String() + ")"}
		}
		fv.SetInt(n)
		return nil
	}
	if n < 0 || fv.OverflowUint(uint64(n)) {
		return &tablekit.DecodeError{Property: f.name, Reason: edm + " value does not fit field " + f.goName + " (" + fv.Type().String() + ")"}
	}
	fv.SetUint(uint64(n))
	return nil
}

// setDouble stores a Double, or an Int32 (which widens exactly), in a
// float field; a float32 field takes only values it holds exactly.
func setDouble(f *field, t *token, fv reflect.Value) error {
	var x float64
	edm := t.typed
	switch {
	case t.kind == 'n' && edm == "":
		var p string
		if edm, p = numberType(t.str); p != "" {
			return &tablekit.DecodeError{Property: f.name, Reason: p}
		}
		if edm == edmInt64 {
			return mismatch(f, t, edmDouble)
		}
		fallthrough
	case t.kind == 'n' && edm == edmDouble:
		var ok bool
		if x, ok = parseNumber(t.str); !ok {
			return &tablekit.DecodeError{Property: f.name, Reason: doubleProblem}
		}
	case t.kind == 'n' && edm == edmInt32:
		n, p := parseInt32(t.str)
		if p != "" {
			return &tablekit.DecodeError{Property: f.name, Reason: p}
		}
		x = float64(n)
	case t.kind == 's' && edm == edmDouble:
		var ok bool
		if x, ok = wire.ParseDouble(t.str); !ok {
			return &tablekit.DecodeError{Property: f.name, Reason: doubleProblem}
		}
	case t.kind == 's' && edm == "":
		// NaN and the infinities have no JSON number: a writer that
		// leaves annotations out (odata=nometadata, exports) leaves
		// them as bare strings, which only a float field reads so.
		var ok bool
		if x, ok = wire.DoubleSpecial(t.str); !ok {
			return mismatch(f, t, edmDouble)
		}
	default:
		return mismatch(f, t, edmDouble)
	}
	if fv.Kind() == reflect.Float32 && finite(x) && float64(float32(x)) != x {
		return &tablekit.DecodeError{Property: f.name, Reason: edm + " value does not fit float32 exactly; use float64"}
	}
	fv.SetFloat(x)
	return nil
}

// parseTime accepts the service's forms: RFC 3339 with up to 7 fractional
// digits, always returned in UTC.
func parseTime(s string) (time.Time, error) {
	if t, ok := wire.ParseServiceTime(s); ok {
		return t, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		// Some writers omit the zone; the service stores UTC.
		t2, err2 := time.Parse("2006-01-02T15:04:05.9999999", s)
		if err2 != nil {
			return time.Time{}, err
		}
		t = t2
	}
	return t.UTC(), nil
}

// parseObject reads an entity, {"name": scalar, ...}, into toks and
// returns the length it read; whole requires that only whitespace follows.
// Nested objects and arrays are checked and skipped: the service never
// sends them in an entity, other writers may.
func parseObject(s *wire.Scanner, toks []token, whole bool) ([]token, int, error) {
	d := s.Data
	at := func(b []byte) (span, string) {
		if len(b) == 0 {
			return span{}, ""
		}
		if off := cap(d) - cap(b); off >= 0 && off+len(b) <= len(d) && &d[off] == &b[0] {
			return span{off, len(b)}, ""
		}
		return span{off: -1}, string(b) // the scanner's scratch space
	}
	err := s.Object(func(name []byte) error {
		toks = append(toks, token{}) // filled in place: a token is large
		t := &toks[len(toks)-1]
		t.nameAt, t.name = at(name)
		switch c := s.Peek(); {
		case c == '"':
			v, err := s.String()
			if err != nil {
				return err
			}
			t.kind = 's'
			t.strAt, t.str = at(v)
		case c == '-' || (c >= '0' && c <= '9'):
			v, err := s.Number()
			if err != nil {
				return err
			}
			t.kind = 'n'
			t.strAt, t.str = at(v)
		case c == '{' || c == '[':
			t.kind = 'x'
			if err := s.Skip(); err != nil {
				return err
			}
		default:
			lit, err := s.Literal()
			if err != nil {
				return err
			}
			t.kind = lit
			if lit == 'n' {
				t.kind = 'z'
			}
		}
		return nil
	})
	if err == nil && whole {
		err = s.End()
	}
	if err != nil {
		return toks, s.Pos, &tablekit.DecodeError{Reason: err.Error(), Err: err}
	}
	// Names and values are substrings of one copy of the entity, not a
	// string each; keepShared decides whether what is stored may keep the
	// copy alive.
	text := string(d[:s.Pos])
	for i := range toks {
		t := &toks[i]
		if t.nameAt.off >= 0 {
			t.name = text[t.nameAt.off : t.nameAt.off+t.nameAt.n]
		}
		if t.strAt.off >= 0 {
			t.str = text[t.strAt.off : t.strAt.off+t.strAt.n]
		}
	}
	return toks, s.Pos, nil
}

// decodeSystem sets the keys, the Timestamp and the ETag, which every plan
// (struct or dynamic) decodes alike; it reports whether t was one of them.
func (p *Plan) decodeSystem(t *token, v reflect.Value) (bool, error) {
	switch t.name {
	case "PartitionKey":
		return true, setKey(&p.keys[0], t, v)
	case "RowKey":
		return true, setKey(&p.keys[1], t, v)
	case "Timestamp":
		if t.kind == 's' {
			return true, p.setTimestamp(v, t.str)
		}
		return true, nil
	case "odata.etag":
		if p.etag != nil && t.kind == 's' {
			v.FieldByIndex(p.etag.index).SetString(t.keep())
		}
		return true, nil
	}
	return false, nil
}
