package main

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tablekit/tablekit/internal/wire"
	"github.com/tablekit/tablekit/table"
)

// dynTable is the table handle of export, import and copy: any entity,
// every property with its exact EDM type.
type dynTable = table.Table[table.Entity]

// timestampLayout is the service's own: seven fractional digits (100 ns).
const timestampLayout = "2006-01-02T15:04:05.0000000Z"

// lineWriter writes entities as JSON lines: the service's JSON form, as the
// library's codec writes it (names sorted, a Double always annotated, so
// 1.0 stays a Double), with Timestamp added and annotated (the codec leaves
// it out since writes never send it). It appends to one reused buffer and
// skips the checks a write needs (key and name rules, sizes): the entities
// came from the service. TestLineWriterMatchesCodec holds its bytes equal to
// Table.Marshal's; it stays beside the codec because Marshal, with its
// checks and a buffer per entity, costs more per exported entity
// (BenchmarkJSONLine). Lines are read back through the codec (parseLine).
type lineWriter struct {
	buf   []byte
	names []string
}

// line returns e's line, valid until the next call.
func (w *lineWriter) line(e table.Entity) ([]byte, error) {
	b := append(w.buf[:0], `{"PartitionKey":`...)
	b = wire.AppendString(b, e.PartitionKey)
	b = append(b, `,"RowKey":`...)
	b = wire.AppendString(b, e.RowKey)
	names := w.order(e.Properties)
	var err error
	for _, name := range names {
		if b, err = appendProperty(b, name, e.Properties[name]); err != nil {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	if !e.Timestamp.IsZero() {
		b = append(b, `,"Timestamp@odata.type":"Edm.DateTime","Timestamp":"`...)
		b = appendDateTime(b, e.Timestamp)
		b = append(b, '"')
	}
	b = append(b, '}', '\n')
	w.buf = b
	return b, nil
}

// order returns the names of props sorted. The entities of a table mostly
// share one set of names, so the last order is reused when it fits: a
// lookup per name instead of a sort.
func (w *lineWriter) order(props map[string]any) []string {
	if len(w.names) == len(props) && len(props) > 0 {
		same := true
		for _, k := range w.names {
			if _, ok := props[k]; !ok {
				same = false
				break
			}
		}
		if same {
			return w.names
		}
	}
	names := w.names[:0]
	for k := range props {
		names = append(names, strings.Clone(k)) // not the entity's: kept for the next
	}
	slices.Sort(names)
	w.names = names
	return names
}

// appendDateTime writes t in UTC as the service does, seven fractional
// digits: what AppendFormat(timestampLayout) writes for the years Edm.DateTime
// holds (1601 to 9999), without parsing the layout each time.
func appendDateTime(b []byte, t time.Time) []byte {
	t = t.UTC()
	y, mo, d := t.Date()
	h, mi, s := t.Clock()
	b = appendDigits(b, y, 4)
	b = append(b, '-')
	b = appendDigits(b, int(mo), 2)
	b = append(b, '-')
	b = appendDigits(b, d, 2)
	b = append(b, 'T')
	b = appendDigits(b, h, 2)
	b = append(b, ':')
	b = appendDigits(b, mi, 2)
	b = append(b, ':')
	b = appendDigits(b, s, 2)
	b = append(b, '.')
	b = appendDigits(b, t.Nanosecond()/100, 7)
	return append(b, 'Z')
}

// appendDigits writes n (>= 0) zero-padded to width digits.
func appendDigits(b []byte, n, width int) []byte {
	var t [10]byte
	for i := width - 1; i >= 0; i-- {
		t[i] = byte('0' + n%10)
		n /= 10
	}
	return append(b, t[:width]...)
}

// appendProperty writes `,"name":value`, with the annotation the value's
// EDM type needs; a Go type with no EDM type is an error, as in Marshal.
func appendProperty(b []byte, name string, v any) ([]byte, error) {
	switch x := v.(type) {
	case string:
		b = wire.AppendString(wire.AppendMember(b, name, ""), x)
	case bool:
		b = strconv.AppendBool(wire.AppendMember(b, name, ""), x)
	case int32:
		b = strconv.AppendInt(wire.AppendMember(b, name, ""), int64(x), 10)
	case int64:
		b = append(wire.AppendMember(b, name, "Edm.Int64"), '"')
		b = append(strconv.AppendInt(b, x, 10), '"')
	case float64:
		b = wire.AppendDouble(wire.AppendMember(b, name, "Edm.Double"), x, 64)
	case time.Time:
		if x.IsZero() {
			return nil, fmt.Errorf("%s: the zero time.Time", name)
		}
		if y := x.UTC().Year(); y < 1601 || y > 9999 {
			return nil, fmt.Errorf("%s: %v is outside Edm.DateTime's range", name, x)
		}
		b = append(wire.AppendMember(b, name, "Edm.DateTime"), '"')
		b = append(appendDateTime(b, x), '"')
	case table.GUID:
		b = append(wire.AppendMember(b, name, "Edm.Guid"), '"')
		b, _ = x.AppendText(b) // never fails
		b = append(b, '"')
	case []byte:
		b = append(wire.AppendMember(b, name, "Edm.Binary"), '"')
		b = append(base64.StdEncoding.AppendEncode(b, x), '"')
	default:
		return nil, fmt.Errorf("%s: Go type %T has no EDM type", name, v)
	}
	return b, nil
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
