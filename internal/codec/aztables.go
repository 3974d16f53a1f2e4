package codec

import (
	"encoding"
	"reflect"

	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
)

// aztables' EDM wrappers implement encoding.TextMarshaler, so taken as text
// they would be stored as Edm.String: the data would change type under code
// written for aztables, and a filter such as N eq 5L would stop matching.
// They map to the EDM type they stand for instead, both ways.
var (
	edmInt64Type    = reflect.TypeFor[aztables.EDMInt64]()
	edmDateTimeType = reflect.TypeFor[aztables.EDMDateTime]()
	edmGUIDType     = reflect.TypeFor[aztables.EDMGUID]()
	edmBinaryType   = reflect.TypeFor[aztables.EDMBinary]()
	aztablesPkg     = edmInt64Type.PkgPath()
)

// wrapperKind is the EDM kind of an aztables wrapper type, 0 for others.
func wrapperKind(t reflect.Type) kind {
	switch t {
	case edmInt64Type:
		return kInt64
	case edmDateTimeType:
		return kTime
	case edmGUIDType:
		return kGUIDText
	case edmBinaryType:
		return kBinary
	}
	return 0
}

// isTimestampType reports the types a Timestamp field may have: time.Time,
// or aztables.EDMDateTime as in an embedded aztables.Entity.
func isTimestampType(t reflect.Type) bool { return t == timeType || t == edmDateTimeType }

// unsafeText explains why a TextMarshaler must not be stored as its text,
// or returns "": a type whose text would stand for another EDM type that
// other clients store natively, so that tablekit's writes would change the
// type of their data.
func unsafeText(t reflect.Type) string {
	if !t.Implements(reflect.TypeFor[encoding.TextMarshaler]()) {
		return ""
	}
	switch {
	case t.PkgPath() == aztablesPkg:
		return "aztables type " + t.String() + " has no known EDM type; its text would be stored as Edm.String"
	case t.Kind() == reflect.Array && t.Len() == 16 && t.Elem().Kind() == reflect.Uint8:
		return "16-byte type " + t.String() + " looks like a GUID that other clients store as Edm.Guid, but its text would be stored as Edm.String; use table.GUID (convert with table.GUID(v))"
	}
	return ""
}
