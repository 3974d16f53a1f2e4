package main

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/internal/wire"
	"github.com/tablekit/tablekit/table"
)

// dynTable is the table handle of export, import and copy: any entity,
// every property with its exact EDM type.
type dynTable = table.Table[table.Entity]

// timestampLayout is the service's own: seven fractional digits (100 ns).
const timestampLayout = wire.DateTimeLayout

// lineWriter writes entities as JSON lines through the library's codec
// (Table.AppendJSON: the service's JSON form, names sorted, a Double
// always annotated, Timestamp added), so the format has one definition,
// into one reused buffer. Lines are read back through the codec
// (parseLine).
type lineWriter struct {
	t   *dynTable
	buf []byte
}

// line returns e's line, valid until the next call.
func (w *lineWriter) line(e table.Entity) ([]byte, error) {
	b, err := w.t.AppendJSON(w.buf[:0], e)
	if err != nil {
		return nil, err
	}
	w.buf = append(b, '\n')
	return w.buf, nil
}

// parseLine reads one JSON line back. Timestamp and odata.etag are read
// and then dropped: the service sets them. Marshal then checks every rule
// a write would (keys, names, sizes), so a bad line is refused here with
// its reason instead of failing a whole transaction.
func parseLine(t *dynTable, line []byte) (table.Entity, error) {
	line = bytes.TrimSpace(line)
	e, err := t.Unmarshal(line)
	if err != nil {
		return table.Entity{}, err
	}
	e.Meta = table.Meta{}
	if _, err := t.Marshal(e); err != nil {
		return table.Entity{}, err
	}
	return e, nil
}

// splitLine reads one JSON line as a raw entity for import: its keys, and
// every other member (Timestamp and the odata metadata dropped) copied as
// it is into Properties, kept in texts with the line itself (for
// --rejects; item.input). Values are not read: the write checks each
// against its annotated type, with the names, keys and limits, as it
// encodes the entity, and refuses a bad one before sending it
// (roundWriter.checkRaw names the rule), so a line is scanned once here and
// once by the write instead of decoded, checked and encoded again. The
// item's line number is the caller's to set.
func splitLine(line []byte, texts *slab, scratch []byte) (item, []byte, error) {
	if e, head, tail, ok := splitExported(line, texts); ok {
		return item{raw: e, head: head, tail: tail, size: len(head) + len(e.Properties) + len(tail)}, scratch, nil
	}
	text := texts.keep(line)
	e, scratch, err := scanLine(text, texts, scratch)
	return item{raw: e, text: text, size: len(text) + len(e.Properties)}, scratch, err
}

// scanLine is splitLine for any line: it scans every member.
func scanLine(line []byte, texts *slab, scratch []byte) (table.RawEntity, []byte, error) {
	var e table.RawEntity
	s := wire.Scanner{Data: line}
	props := append(scratch[:0], '{')
	prevEnd := bytes.IndexByte(line, '{') + 1
	err := s.Object(func(name []byte) error {
		start := prevEnd
		defer func() { prevEnd = s.Pos }()
		switch n := string(name); {
		case n == "PartitionKey" || n == "RowKey":
			if s.Peek() != '"' {
				return fmt.Errorf("%s must be a string", n)
			}
			v, err := s.String()
			if n == "PartitionKey" {
				e.PartitionKey = string(v)
			} else {
				e.RowKey = string(v)
			}
			return err
		case n == "Timestamp" || n == "Timestamp@odata.type" || strings.HasPrefix(n, "odata."):
			return s.Skip()
		}
		if err := s.Skip(); err != nil {
			return err
		}
		for start < len(line) && (line[start] == ',' || line[start] == ' ' || line[start] == '\t') {
			start++
		}
		if len(props) > 1 {
			props = append(props, ',')
		}
		props = append(props, line[start:s.Pos]...)
		return nil
	})
	if err == nil {
		err = s.End()
	}
	if err != nil {
		return e, props, &tablekit.DecodeError{Reason: err.Error(), Err: err}
	}
	e.Properties = texts.keep(append(props, '}'))
	return e, props, nil
}

// The members around an exported line's properties, as export writes them
// (codec's AppendRawLine).
const (
	exportedPK = `{"PartitionKey":`
	exportedRK = `,"RowKey":`
	exportedTS = `,"Timestamp@odata.type":"Edm.DateTime","Timestamp":"`
)

// splitExported is splitLine for a line laid out as export writes it: the
// keys first, Timestamp last or not at all, no white space between them.
// It reads the keys and finds the properties between them by their
// bounds, without scanning each value, which the write scans and checks
// anyway: a line that is not JSON there is refused by the write and
// rejected with the check's reason, as is any entity the write refuses.
// The line's text around the members, head and tail, is kept with them:
// head, the members and tail are the line.
// ok is false for any other line, and for one whose properties might hold
// a member splitLine drops or reads as a key (Timestamp, a name starting
// odata., a key's name, or a \u escape that could spell one, anywhere in
// its properties): those go through splitLine's scan. Every line it splits, splitLine splits
// the same way.
func splitExported(line []byte, texts *slab) (e table.RawEntity, head, tail []byte, ok bool) {
	if !bytes.HasPrefix(line, []byte(exportedPK)) {
		return e, nil, nil, false
	}
	s := wire.Scanner{Data: line, Pos: len(exportedPK)}
	pk, err := s.String()
	if err != nil || !bytes.HasPrefix(line[s.Pos:], []byte(exportedRK)) {
		return e, nil, nil, false
	}
	s.Pos += len(exportedRK)
	rk, err := s.String()
	if err != nil || line[len(line)-1] != '}' || s.Pos >= len(line) {
		return e, nil, nil, false
	}
	start := s.Pos
	props := line[start : len(line)-1]
	// The Timestamp member, where export writes it: last, its value the
	// string that closes the line. Its name before that value's opening
	// quote, the value free of escapes: the same bytes inside a string
	// would need both. Anything else leaves it in props, where the check
	// below sends the line to the scan.
	if n := len(props); n > 0 && props[n-1] == '"' {
		if j := bytes.LastIndexByte(props[:n-1], '"'); j >= 0 && bytes.HasSuffix(props[:j+1], []byte(exportedTS)) {
			if bytes.IndexByte(props[j+1:n-1], '\\') >= 0 {
				return e, nil, nil, false
			}
			props = props[:j+1-len(exportedTS)]
		}
	}
	if len(props) > 0 && props[0] != ',' {
		return e, nil, nil, false
	}
	if mayHideMember(props) {
		return e, nil, nil, false
	}
	if len(props) > 0 {
		start++
		props = props[1:]
	}
	e.PartitionKey, e.RowKey = string(pk), string(rk)
	head, e.Properties, tail = texts.keepAround(line, start, start+len(props))
	return e, head, tail, true
}

// mayHideMember reports whether the members props might hold one that
// splitLine drops or reads as a key: the bytes of Timestamp, of Key"
// (either key's name), of "odata. (a metadata name), or a \u escape that
// could spell any of them. Each is searched from a byte rare in JSON text,
// not from the quote, the commonest: the escape only where a backslash is,
// "odata. from its dot.
func mayHideMember(props []byte) bool {
	if bytes.Contains(props, []byte(`Timestamp`)) || bytes.Contains(props, []byte(`Key"`)) {
		return true
	}
	if bytes.IndexByte(props, '\\') >= 0 && bytes.Contains(props, []byte(`\u`)) {
		return true
	}
	const odata = `"odata`
	for rest, off := props, 0; ; {
		i := bytes.IndexByte(rest, '.')
		if i < 0 {
			return false
		}
		if at := off + i; at >= len(odata) && string(props[at-len(odata):at]) == odata {
			return true
		}
		rest, off = rest[i+1:], off+i+1
	}
}

// entityRow is the CSV form of an entity, properties in name order.
func entityRow(e table.Entity) (Row, error) {
	r := Row{PartitionKey: e.PartitionKey, RowKey: e.RowKey}
	if !e.Timestamp.IsZero() {
		r.Timestamp = e.Timestamp.UTC().Format(timestampLayout)
	}
	for _, name := range sortedKeys(e.Properties) {
		typ, s, err := formatValue(e.Properties[name])
		if err != nil {
			return Row{}, fmt.Errorf("%s: %w", name, err)
		}
		r.Props = append(r.Props, Prop{Name: name, Type: typ, Value: s})
	}
	return r, nil
}

// rowEntity is the entity of a CSV row; the reader already checked each
// value against its type.
func rowEntity(t *dynTable, r Row) (table.Entity, error) {
	e := table.NewEntity(r.PartitionKey, r.RowKey)
	for _, p := range r.Props {
		v, err := parseValue(p.Type, p.Value)
		if err != nil {
			return table.Entity{}, fmt.Errorf("%s: %w", p.Name, err)
		}
		e.Properties[p.Name] = v
	}
	if _, err := t.Marshal(e); err != nil {
		return table.Entity{}, err
	}
	return e, nil
}

func sortedKeys(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// approxSize estimates an entity's bytes on the wire, to bound the memory
// of a round of copied entities without encoding them twice.
func approxSize(e table.Entity) int {
	n := 64 + len(e.PartitionKey) + len(e.RowKey)
	for k, v := range e.Properties {
		n += len(k) + 24
		switch x := v.(type) {
		case string:
			n += len(x)
		case []byte:
			n += len(x) * 4 / 3
		default:
			n += 24
		}
	}
	return n
}

// sameProps says whether two property maps hold the same values with the
// same types: an add-mode import uses it to recognize its own earlier write.
func sameProps(a, b map[string]any) bool {
	if len(a) != len(b) {
		return false
	}
	for k, x := range a {
		y, ok := b[k]
		if !ok {
			return false
		}
		switch xv := x.(type) {
		case []byte:
			yv, ok := y.([]byte)
			if !ok || !bytes.Equal(xv, yv) {
				return false
			}
		case time.Time:
			yv, ok := y.(time.Time)
			if !ok || !xv.Equal(yv) {
				return false
			}
		case float64:
			yv, ok := y.(float64)
			if !ok || strconv.FormatFloat(xv, 'g', -1, 64) != strconv.FormatFloat(yv, 'g', -1, 64) {
				return false
			}
		default:
			if x != y {
				return false
			}
		}
	}
	return true
}
