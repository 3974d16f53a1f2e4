package codec

import (
	"bytes"
	"encoding/base64"
	"reflect"
	"sync"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/internal/backend"
	"github.com/tablekit/tablekit/internal/wire"
)

// The plan of table.RawEntity is a dynamic plan (any property name may
// exist, none has a static type) whose properties stay the service's JSON:
// decoding copies the members but the keys, Timestamp and odata metadata,
// encoding writes them back after the keys. Tools that move entities
// without looking at them (copy, backup) skip building and re-encoding a
// map per entity.

// buildRaw makes the plan of table.RawEntity: keys, ETag and Timestamp as
// fields, the properties a []byte field.
func buildRaw(t reflect.Type) (*Plan, error) {
	bad := func(why string) (*Plan, error) {
		return nil, typeError(t.String(), "", why)
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

// rawStartSize is the first capacity of a RawEntity's properties read
// from a page: most entities are a kilobyte or two.
const rawStartSize = 2048

// rawMember is one member of an entity's JSON object as the raw reader
// keeps it: where its text lies, so that it is copied rather than decoded
// and encoded again, and what the checks need.
type rawMember struct {
	name   []byte // unescaped
	text   span   // `"name": value` in the input
	val    span   // the value in the input
	kind   byte   // as token.kind
	anno   int    // a property's annotation member, -1 for none
	annoOf []byte // an annotation's property name; nil for a property
}

// rawPool recycles the member lists of the raw reader and the scanner,
// whose scratch space an escaped string (every ETag) is read into.
var rawPool = sync.Pool{New: func() any { return &rawState{members: make([]rawMember, 0, 32)} }}

type rawState struct {
	members []rawMember
	s       wire.Scanner
	// keys holds a read's PartitionKey, RowKey and ETag text until the
	// entity ends, when they become one string (rawKeys).
	keys rawKeys
	out  rawPieces // decodeRawFast's
}

// rawKeys gathers the string values of an entity's keys and ETag as a read
// finds them, so that the three are kept as substrings of one copy: one
// allocation per entity instead of three (the ETag's 40 bytes or so are
// all that one key kept alone holds alive beside it).
type rawKeys struct {
	buf          []byte
	pk, rk, etag span // n -1: not read
}

func (k *rawKeys) reset() {
	k.buf = k.buf[:0]
	k.pk, k.rk, k.etag = span{n: -1}, span{n: -1}, span{n: -1}
}

func (k *rawKeys) add(at *span, str []byte) {
	*at = span{len(k.buf), len(str)}
	k.buf = append(k.buf, str...)
}

// set stores the keys and ETag read into v, through the plan's fields.
func (k *rawKeys) set(p *Plan, v reflect.Value) {
	if k.pk.n < 0 && k.rk.n < 0 && (k.etag.n < 0 || p.etag == nil) {
		return
	}
	all := string(k.buf)
	at := func(s span) string { return all[s.off : s.off+s.n] }
	if k.pk.n >= 0 {
		v.FieldByIndex(p.keys[0].index).SetString(at(k.pk))
	}
	if k.rk.n >= 0 {
		v.FieldByIndex(p.keys[1].index).SetString(at(k.rk))
	}
	if k.etag.n >= 0 && p.etag != nil {
		v.FieldByIndex(p.etag.index).SetString(at(k.etag))
	}
}

// rawReader reads the members of one object in data and writes them out
// again, each property with its annotation just before it (the service's
// order, whatever the input's: aztables' re-encoded maps put annotations
// after their values, sometimes with other properties between), after
// checking every value against its annotated type (edm.go). A number
// without annotation is typed by its form and gets the annotation that
// keeps that type: a Double always (a whole Double such as 1.0 would be
// stored as an Int32 by a writer that reads JSON numbers as numbers), an
// Int64 beyond Int32's range, written as the string Edm.Int64 requires.
type rawReader struct {
	data    []byte
	members []rawMember
	// encoding: a write's (encodeRaw); its Edm.Double strings are written
	// in the service's spelling (appendDoubleString). A read keeps them.
	encoding bool
}

// add records the member called name whose value is at the scanner,
// reading the value; start is where the member's text may begin (commas
// and whitespace before it are trimmed).
func (r *rawReader) add(s *wire.Scanner, name []byte, start int) error {
	m := rawMember{anno: -1}
	if inData(r.data, name) {
		m.name = name
	} else {
		m.name = bytes.Clone(name) // the scanner's scratch space
	}
	if base, ok := bytes.CutSuffix(m.name, []byte(annoSuffix)); ok {
		m.annoOf = base
	}
	m.kind = valueKind(s.Peek())
	valStart := s.Pos
	if err := s.Skip(); err != nil {
		return err
	}
	start = memberStart(r.data, start, valStart)
	m.text, m.val = span{start, s.Pos - start}, span{valStart, s.Pos - valStart}
	r.members = append(r.members, m)
	return nil
}

// valueKind is the kind (as token.kind) of the JSON value starting with c.
func valueKind(c byte) byte {
	switch {
	case c == '"':
		return 's'
	case c == '-' || (c >= '0' && c <= '9'):
		return 'n'
	case c == '{' || c == '[':
		return 'x'
	case c == 't' || c == 'f':
		return c
	}
	return 'z'
}

// rawProblem is what is wrong with one property, for the caller to turn
// into a tablekit.DecodeError or a tablekit.ValidationError (with rule).
type rawProblem struct{ property, rule, reason string }

// misshapen and misfit make the problems of a malformed object and of a
// value outside its type.
func misshapen(name []byte, reason string) *rawProblem {
	return &rawProblem{string(name), RuleMarshal, reason}
}

func misfit(name []byte, reason string) *rawProblem {
	return &rawProblem{string(name), RuleEDMValue, reason}
}

// pair attaches each annotation to its property. An annotation that
// annotates nothing is a problem when strict (a write), and dropped
// otherwise.
func (r *rawReader) pair(strict bool) *rawProblem {
	ms := r.members
	for a := range ms {
		base := ms[a].annoOf
		if base == nil {
			continue
		}
		if ms[a].kind != 's' {
			return misshapen(ms[a].name, "an annotation must be a string")
		}
		p := -1
		switch {
		case a+1 < len(ms) && ms[a+1].annoOf == nil && bytes.Equal(ms[a+1].name, base):
			p = a + 1 // the service's order
		case a > 0 && ms[a-1].annoOf == nil && bytes.Equal(ms[a-1].name, base):
			p = a - 1
		default:
			for i := range ms {
				if ms[i].annoOf == nil && bytes.Equal(ms[i].name, base) {
					p = i
					break
				}
			}
		}
		switch {
		case p < 0 && strict:
			return misshapen(ms[a].name, "an annotation of no property")
		case p < 0:
		case ms[p].anno >= 0:
			return misshapen(base, "annotated twice")
		default:
			ms[p].anno = a
		}
	}
	return nil
}

// str is the contents of the JSON string at v, unescaped (the EDM texts
// the service writes never need it, so that is the slow path).
func (r *rawReader) str(v span) string {
	b := r.data[v.off+1 : v.off+v.n-1]
	if bytes.IndexByte(b, '\\') < 0 {
		return string(b)
	}
	s := wire.Scanner{Data: r.data[v.off : v.off+v.n]}
	u, err := s.String()
	if err != nil {
		return string(b)
	}
	return string(u)
}

// edm is the annotation at v: one of the EDM type names as the constant
// itself (no copy per annotation of every entity read), else as str reads
// it.
func (r *rawReader) edm(v span) string {
	switch string(r.data[v.off+1 : v.off+v.n-1]) {
	case edmString:
		return edmString
	case edmBoolean:
		return edmBoolean
	case edmInt32:
		return edmInt32
	case edmInt64:
		return edmInt64
	case edmDouble:
		return edmDouble
	case edmDateTime:
		return edmDateTime
	case edmGUID:
		return edmGUID
	case edmBinary:
		return edmBinary
	}
	return r.str(v)
}

// write appends the properties, each after a comma (first: none), in the
// order described at rawReader, and returns their count. Text copied as it
// is goes out in runs: members that lie one comma apart in the input (the
// service's compact JSON, an annotation just before its value) are
// appended as one span, not one by one.
func (r *rawReader) write(dst []byte, first bool) ([]byte, int, *rawProblem) {
	w := runWriter{dst: dst, data: r.data, first: first}
	count := 0
	for i := range r.members {
		m := &r.members[i]
		if m.annoOf != nil {
			continue
		}
		count++
		if m.kind == 'x' {
			return w.flush(), count, misshapen(m.name, "a nested object or array is not a property value")
		}
		if m.anno >= 0 {
			a := &r.members[m.anno]
			edm := r.edm(a.val)
			if pr := r.check(edm, m); pr != "" {
				return w.flush(), count, misfit(m.name, pr)
			}
			if r.encoding && edm == edmDouble && m.kind == 's' {
				w.copy(a.text, false)
				w.dst = r.appendDoubleString(append(w.flush(), ','), m)
				continue
			}
			w.copy(a.text, false)
			w.copy(m.text, true)
			continue
		}
		edm, pr := r.unannotated(m)
		switch {
		case pr != "":
			return w.flush(), count, misfit(m.name, pr)
		case edm == "":
			w.copy(m.text, false)
			continue
		}
		dst = w.flush()
		if !w.first {
			dst = append(dst, ',')
		}
		w.first = false
		dst, complete := r.appendTyped(dst, m, edm)
		w.dst = dst
		if !complete {
			w.copy(m.text, true)
		}
	}
	return w.flush(), count, nil
}

// unannotated says how the value of m, a property without annotation, is
// written: as it is (edm ""), or after the annotation that keeps its type
// (appendTyped), a Double always and an Int64 beyond Int32's range;
// problem says why no type holds it.
func (r *rawReader) unannotated(m *rawMember) (edm, problem string) {
	if m.kind != 'n' {
		return "", ""
	}
	num := string(r.data[m.val.off : m.val.off+m.val.n])
	edm, problem = numberType(num)
	switch {
	case problem != "":
		return "", problem
	case edm == edmInt32:
		return "", ""
	case edm == edmDouble && !numberInRange(num):
		return "", doubleProblem
	}
	return edm, ""
}

// appendTyped appends the annotation of m's number as edm (unannotated's)
// and, for an Int64, the member itself, its value written as the string
// Edm.Int64 requires: complete is true then. A Double's member is left to the
// caller, after a comma, as it is.
func (r *rawReader) appendTyped(dst []byte, m *rawMember, edm string) (out []byte, complete bool) {
	dst = wire.AppendString(dst, string(m.name)+annoSuffix)
	dst = append(dst, ':', '"')
	dst = append(dst, edm...)
	dst = append(dst, '"')
	if edm != edmInt64 {
		return dst, false
	}
	dst = append(dst, ',')
	dst = wire.AppendString(dst, string(m.name))
	dst = append(dst, ':', '"')
	dst = append(dst, r.data[m.val.off:m.val.off+m.val.n]...)
	return append(dst, '"'), true
}

// runWriter appends spans of its input to dst, comma separated, joining a
// span that starts one comma after the pending one into it.
type runWriter struct {
	dst, data  []byte
	start, end int  // the pending run, empty when equal
	first      bool // no member written yet: no comma before the next
}

// copy adds the input's text at sp. joined: sp continues the member just
// written (a value after its annotation), so it follows a comma even when
// that member opened the object.
func (w *runWriter) copy(sp span, joined bool) {
	if w.end > w.start && sp.off == w.end+1 && w.data[w.end] == ',' {
		w.end = sp.off + sp.n
		return
	}
	w.dst = w.flush()
	if !w.first || joined {
		w.dst = append(w.dst, ',')
	}
	w.first = false
	w.start, w.end = sp.off, sp.off+sp.n
}

// flush appends the pending run and returns dst.
func (w *runWriter) flush() []byte {
	if w.end > w.start {
		w.dst = append(w.dst, w.data[w.start:w.end]...)
		w.start, w.end = 0, 0
	}
	return w.dst
}

// appendDoubleString writes m, an Edm.Double written as a string (checked
// already), in the service's spelling: it refuses other writers' "INF" and
// "-INF" (Azurite answers 400 InvalidInput), and a number is written as a
// number.
func (r *rawReader) appendDoubleString(dst []byte, m *rawMember) []byte {
	x, _ := wire.ParseDouble(r.str(m.val))
	dst = append(dst, r.data[m.text.off:m.val.off]...)
	return wire.AppendDouble(dst, x, 64)
}

// check says what is wrong with m's value as an edm, or returns "".
func (r *rawReader) check(edm string, m *rawMember) string {
	if pr := formProblem(edm, m.kind); pr != "" || m.kind == 'z' || edm == edmString || edm == edmBoolean {
		return pr // their form is all there is to check
	}
	// The value's text, unescaped only where it has escapes. Each parser
	// gets string(text) at its call and keeps none of it, so a short text
	// (a number, a DateTime) is converted on the stack, not copied to the
	// heap for every value of every entity read.
	var text []byte
	if m.kind == 's' {
		if text = r.data[m.val.off+1 : m.val.off+m.val.n-1]; bytes.IndexByte(text, '\\') >= 0 {
			text = []byte(r.str(m.val))
		}
	} else {
		text = r.data[m.val.off : m.val.off+m.val.n]
	}
	var pr string
	switch edm {
	case edmInt32:
		_, pr = parseInt32(string(text))
	case edmInt64:
		_, pr = parseInt64(string(text))
	case edmDouble:
		var ok bool
		if m.kind == 's' {
			_, ok = wire.ParseDouble(string(text))
		} else {
			ok = numberInRange(string(text))
		}
		if !ok {
			pr = doubleProblem
		}
	case edmDateTime:
		_, pr = parseDateTime(string(text))
	case edmGUID:
		if _, err := parseGUID(text); err != nil {
			pr = "Edm.Guid value is not a GUID"
		}
	case edmBinary:
		if _, err := base64.StdEncoding.Decode(make([]byte, base64.StdEncoding.DecodedLen(len(text))), text); err != nil {
			pr = "Edm.Binary value is not base64"
		}
	}
	return pr
}

// decodeRaw reads an entity into a RawEntity: the keys, ETag and Timestamp
// into their fields, every other member, annotations included, into one
// JSON object, in rawReader's order and checked by its rules (a misfit is
// a *tablekit.DecodeError). The odata.* metadata (and Timestamp's annotation) are
// dropped: they are not properties. A member is copied as its bytes, so
// that names are not decoded and encoded again.
func (p *Plan) decodeRaw(data []byte, v reflect.Value, whole bool) (int, error) {
	if n, ok := p.decodeRawFast(data, v, whole); ok {
		return n, nil
	}
	return p.decodeRawGeneral(data, v, whole)
}

// decodeRawGeneral is decodeRaw for any entity: it lists the members,
// pairs annotations with their properties wherever they are, then checks
// and writes the properties (rawReader).
func (p *Plan) decodeRawGeneral(data []byte, v reflect.Value, whole bool) (int, error) {
	st := rawPool.Get().(*rawState)
	s := &st.s
	s.Reset(data)
	r := rawReader{data: data, members: st.members[:0]}
	keys := &st.keys
	keys.reset()
	defer func() { clear(r.members); st.members = r.members[:0]; s.Reset(nil); rawPool.Put(st) }()
	err := p.rawMembers(s, data, keys, v, func(name []byte, start int) error {
		return r.add(s, name, start)
	})
	if err == nil {
		keys.set(p, v)
	}
	if err == nil && whole {
		err = s.End()
	}
	if err != nil {
		if _, ok := err.(*tablekit.DecodeError); ok {
			return s.Pos, err
		}
		return s.Pos, &tablekit.DecodeError{Reason: err.Error(), Err: err}
	}
	if pr := r.pair(false); pr != nil {
		return s.Pos, &tablekit.DecodeError{Property: pr.property, Reason: pr.reason}
	}
	// Whole, data is the entity: its length bounds the properties. Read
	// where it lies in a page, data runs to the page's end, so start small
	// and let append grow (sizing by the page made every entity of a
	// 1,000-entity page allocate up to a megabyte).
	size := len(data)
	if !whole {
		size = min(s.Pos+s.Pos/8, rawStartSize)
	}
	props, _, pr := r.write(append(make([]byte, 0, size), '{'), true)
	if pr != nil {
		return s.Pos, &tablekit.DecodeError{Property: pr.property, Reason: pr.reason}
	}
	v.FieldByIndex(p.dyn.props).SetBytes(append(props, '}'))
	return s.Pos, nil
}

// rawMembers reads the members of the object at s, data's, handing f each
// that may be a property (rawSystem reads the others) with where its text
// may begin: after the previous member, commas and white space not yet
// trimmed (memberStart).
func (p *Plan) rawMembers(s *wire.Scanner, data []byte, keys *rawKeys, v reflect.Value, f func(name []byte, start int) error) error {
	prevEnd := bytes.IndexByte(data, '{') + 1
	return s.Object(func(name []byte) error {
		start := prevEnd
		defer func() { prevEnd = s.Pos }()
		if done, err := p.rawSystem(s, name, keys, v); done {
			return err
		}
		return f(name, start)
	})
}

// memberStart is where a member's text begins: start moved past the
// commas and white space before it, up to at most valStart.
func memberStart(data []byte, start, valStart int) int {
	for start < valStart && (data[start] == ',' || data[start] == ' ' || data[start] == '\t' || data[start] == '\r' || data[start] == '\n') {
		start++
	}
	return start
}

// rawSystem reads the member called name at the scanner if it is not a
// property (the keys, ETag and Timestamp into keys and v, the rest of the
// odata metadata skipped) and says so.
func (p *Plan) rawSystem(s *wire.Scanner, name []byte, keys *rawKeys, v reflect.Value) (done bool, err error) {
	var sys string
	var at *span
	switch string(name) {
	case "PartitionKey":
		sys, at = "PartitionKey", &keys.pk
	case "RowKey":
		sys, at = "RowKey", &keys.rk
	case "Timestamp":
		sys = "Timestamp"
	case "odata.etag":
		sys, at = "odata.etag", &keys.etag
	case "Timestamp" + annoSuffix:
		return true, s.Skip()
	}
	switch {
	case sys != "" && s.Peek() == '"':
		str, err := s.String()
		if err != nil {
			return true, err
		}
		if at != nil {
			keys.add(at, str) // kept at the end, in one string
			return true, nil
		}
		return true, p.setTimestamp(v, string(str)) // a short conversion, not kept
	case sys != "":
		if err := s.Skip(); err != nil {
			return true, err
		}
		if at != nil {
			*at = span{n: -1} // the last one read counts, as for a string
		}
		_, err := p.decodeSystem(&token{name: sys}, v)
		return true, err
	case bytes.HasPrefix(name, []byte("odata.")):
		return true, s.Skip()
	}
	return false, nil
}

// encodeRaw is Encode for table.RawEntity: the keys, then the members of
// its Properties object after checking that it is an object of scalar
// members with valid property names (annotations beside them), at most
// the backend's MaxProperties of them, each value in its annotated type's
// form and range, written in rawReader's order. A backend that measures
// entities as JSON has its size limit checked; Table Storage's formula is
// left to the service, as the raw form does not say each value's stored
// size.
func (p *Plan) encodeRaw(dst []byte, v reflect.Value, prof *backend.Profile) ([]byte, error) {
	pk, rk := p.Keys(v)
	start := len(dst)
	dst, _, err := appendKeys(dst, prof, pk, rk)
	if err != nil {
		return dst, err
	}
	props := bytes.TrimSpace(v.FieldByIndex(p.dyn.props).Bytes())
	if len(props) == 0 || string(props) == "null" {
		return append(dst, '}'), nil
	}
	st := rawPool.Get().(*rawState)
	s := &st.s
	s.Reset(props)
	r := rawReader{data: props, members: st.members[:0], encoding: true}
	defer func() { clear(r.members); st.members = r.members[:0]; s.Reset(nil); rawPool.Put(st) }()
	prevEnd := 1
	reserved := prof.HasReserved()
	err = s.Object(func(name []byte) error {
		start := prevEnd
		defer func() { prevEnd = s.Pos }()
		prop, _ := bytes.CutSuffix(name, []byte(annoSuffix))
		if !plainName(prop, prof.MaxPropertyName) || reserved && prof.Reserved(string(prop)) {
			if err := checkName(prof, string(prop)); err != nil {
				return err
			}
		}
		return r.add(s, name, start)
	})
	if err == nil {
		err = s.End()
	}
	if err != nil {
		if ve, ok := err.(*tablekit.ValidationError); ok {
			return dst[:start], ve
		}
		return dst[:start], &tablekit.ValidationError{Index: -1, Field: "(entity)", Rule: RuleMarshal, Detail: "Properties is not a JSON object: " + err.Error()}
	}
	pr := r.pair(true)
	count := 0
	if pr == nil {
		dst, count, pr = r.write(dst, false)
	}
	if pr != nil {
		return dst[:start], &tablekit.ValidationError{Index: -1, Field: pr.property, Rule: pr.rule, Detail: pr.reason}
	}
	if err := checkTotals(prof, count, 0, len(dst)-start+1); err != nil {
		return dst[:start], err
	}
	return append(dst, '}'), nil
}

// plainName reports an ASCII property name of at most max bytes that
// passes wire.CheckPropertyName, without converting it to a string:
// letters, digits and '_', not starting with a digit, not a system
// property. Any other name goes through checkName.
func plainName(name []byte, max int) bool {
	if len(name) == 0 || len(name) > max || wire.IsSystemProperty(string(name)) {
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
