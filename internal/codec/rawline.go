package codec

import (
	"bytes"
	"time"

	"github.com/tablekit/tablekit/internal/wire"
)

// AppendRawLine appends a raw entity as one JSON object, in the form
// AppendJSON writes (the keys, the properties, then Timestamp annotated as
// Edm.DateTime when set), with no checks: props is the object a read made,
// already checked and in the service's order (decodeRaw), so a program that
// moves what it read writes each entity once, without a second scan of its
// properties. props nil or empty is an entity with no properties.
func AppendRawLine(dst []byte, pk, rk string, props []byte, ts time.Time) []byte {
	dst = append(dst, `{"PartitionKey":`...)
	dst = wire.AppendString(dst, pk)
	dst = append(dst, `,"RowKey":`...)
	dst = wire.AppendString(dst, rk)
	if inner := rawInner(props); len(inner) > 0 {
		dst = append(dst, ',')
		dst = append(dst, inner...)
	}
	dst = append(dst, '}')
	if ts.IsZero() {
		return dst
	}
	dst = append(dst[:len(dst)-1], `,"Timestamp@odata.type":"Edm.DateTime","Timestamp":"`...)
	dst = wire.AppendDateTime(dst, ts)
	return append(dst, '"', '}')
}

// rawInner is the members of the JSON object props, without its braces
// and the white space around them.
func rawInner(props []byte) []byte {
	props = bytes.TrimSpace(props)
	if len(props) < 2 || props[0] != '{' {
		return nil
	}
	return bytes.TrimSpace(props[1 : len(props)-1])
}
