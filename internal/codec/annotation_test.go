package codec

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tablekit/tablekit"
)

// annotated has a field of each EDM type's own Go type; an Int32 goes into
// an int64 field (a widening), so that its range is checked by the type,
// not by the field.
type annotated struct {
	PartitionKey, RowKey string
	S                    string
	B                    bool
	I32                  int64
	I64                  int64
	U64                  uint64
	D                    float64
	T                    time.Time
	G                    GUID
	Bin                  []byte
}

// badAnnotated lists values that are not in their annotated type's form or
// range: each is refused by every decoder, with the property, the type and
// what is wrong, and never read as a value of another type.
var badAnnotated = []struct {
	name, prop, edm, value, reason string
}{
	{"string as number", "S", "Edm.String", `5`, "Edm.String value is a JSON number, not a JSON string"},
	{"string as boolean", "S", "Edm.String", `true`, "Edm.String value is a JSON boolean, not a JSON string"},
	{"boolean as string", "B", "Edm.Boolean", `"true"`, "Edm.Boolean value is a JSON string, not a JSON boolean"},
	{"boolean as number", "B", "Edm.Boolean", `1`, "Edm.Boolean value is a JSON number, not a JSON boolean"},
	{"int32 above range", "I32", "Edm.Int32", `2147483648`, "Edm.Int32 value out of range"},
	{"int32 below range", "I32", "Edm.Int32", `-2147483649`, "Edm.Int32 value out of range"},
	{"int32 as string", "I32", "Edm.Int32", `"5"`, "Edm.Int32 value is a JSON string, not a JSON number"},
	{"int32 with a fraction", "I32", "Edm.Int32", `1.5`, "Edm.Int32 value is not an integer"},
	{"int32 with an exponent", "I32", "Edm.Int32", `1e3`, "Edm.Int32 value is not an integer"},
	{"int64 as number", "I64", "Edm.Int64", `5`, "Edm.Int64 value is a JSON number, not a JSON string"},
	{"int64 above range", "U64", "Edm.Int64", `"9223372036854775808"`, "Edm.Int64 value out of range"},
	{"int64 not an integer", "I64", "Edm.Int64", `"1.5"`, "Edm.Int64 value is not an integer"},
	{"int64 text", "I64", "Edm.Int64", `"five"`, "Edm.Int64 value is not an integer"},
	{"double text", "D", "Edm.Double", `"five"`, "Edm.Double value is not a number"},
	{"double beyond range", "D", "Edm.Double", `1e400`, "Edm.Double value is not a number within its range"},
	{"double quoted beyond range", "D", "Edm.Double", `"1e400"`, "Edm.Double value is not a number within its range"},
	{"double as boolean", "D", "Edm.Double", `false`, "Edm.Double value is a JSON boolean, not a JSON number"},
	{"datetime text", "T", "Edm.DateTime", `"yesterday"`, "Edm.DateTime value is not an RFC 3339 time"},
	{"datetime before 1601", "T", "Edm.DateTime", `"1600-12-31T23:59:59Z"`, "Edm.DateTime value outside 1601-01-01 to 9999-12-31"},
	{"datetime as number", "T", "Edm.DateTime", `5`, "Edm.DateTime value is a JSON number, not a JSON string"},
	{"guid text", "G", "Edm.Guid", `"zz"`, "Edm.Guid value is not a GUID"},
	{"guid as number", "G", "Edm.Guid", `5`, "Edm.Guid value is a JSON number, not a JSON string"},
	{"binary text", "Bin", "Edm.Binary", `"!!"`, "Edm.Binary value is not base64"},
	{"binary as boolean", "Bin", "Edm.Binary", `true`, "Edm.Binary value is a JSON boolean, not a JSON string"},
	{"unknown type", "S", "Edm.Foo", `"a"`, `annotated "Edm.Foo", which is not a type the service stores`},
	{"decimal", "S", "Edm.Decimal", `"1.5"`, `annotated "Edm.Decimal"`},
	{"annotation after its value", "I32", "Edm.Int32", `2147483648`, "Edm.Int32 value out of range"},
}

// member is the property prop with its annotation, in the order the
// service writes (annotation first), or after another property in the
// order of aztables' sorted maps when the case name says so.
func member(name, prop, edm, value string) string {
	if strings.HasPrefix(name, "annotation after") {
		return `"` + prop + `":` + value + `,"` + prop + `0":1,"` + prop + `@odata.type":"` + edm + `"}`
	}
	return `"` + prop + `@odata.type":"` + edm + `","` + prop + `":` + value + `}`
}

// checkDecodeError checks err is a *tablekit.DecodeError for prop with reason.
func checkDecodeError(t *testing.T, what string, err error, prop, reason string) {
	t.Helper()
	var de *tablekit.DecodeError
	if !errors.As(err, &de) || !errors.Is(err, tablekit.ErrDecode) {
		t.Errorf("%s: err = %v, want a *tablekit.DecodeError", what, err)
		return
	}
	if de.Property != prop || !strings.Contains(de.Reason, reason) {
		t.Errorf("%s: got property %q, reason %q; want %q, a reason containing %q", what, de.Property, de.Reason, prop, reason)
	}
}

// TestAnnotationNeverRetypes: typed and dynamic decoding refuse a value
// outside its annotated type's form or range.
func TestAnnotationNeverRetypes(t *testing.T) {
	p := plan(t, annotated{})
	dp := dynPlan(t)
	for _, c := range badAnnotated {
		t.Run(c.name, func(t *testing.T) {
			body := []byte(keysJSON + member(c.name, c.prop, c.edm, c.value))
			var v annotated
			checkDecodeError(t, "struct", p.Decode(body, reflect.ValueOf(&v).Elem()), c.prop, c.reason)
			var e entityMirror
			checkDecodeError(t, "Entity", dp.Decode(body, reflect.ValueOf(&e).Elem()), c.prop, c.reason)
		})
	}
}

// TestAnnotationTypes: a value in its annotated type's form is read as
// that type wherever the annotation stands; only a number without one is
// typed by its form.
func TestAnnotationTypes(t *testing.T) {
	dp := dynPlan(t)
	g, _ := ParseGUID("0f8fad5b-d9cb-469f-a165-70867728950e")
	for _, c := range []struct {
		name, body string
		want       any
	}{
		{"int32", `"X@odata.type":"Edm.Int32","X":5}`, int32(5)},
		{"double written whole", `"X@odata.type":"Edm.Double","X":5}`, 5.0},
		{"double as a string", `"X@odata.type":"Edm.Double","X":"2.5"}`, 2.5},
		{"int64", `"X@odata.type":"Edm.Int64","X":"-9223372036854775808"}`, int64(-9223372036854775808)},
		{"annotation after the value", `"X":"5","X@odata.type":"Edm.Int64"}`, int64(5)},
		{"annotation after another property", `"X":5,"X2":"a","X@odata.type":"Edm.Double"}`, 5.0},
		{"number by form, int32", `"X":2147483647}`, int32(2147483647)},
		{"number by form, int64", `"X":2147483648}`, int64(2147483648)},
		{"number by form, double", `"X":1.0}`, 1.0},
		{"string", `"X@odata.type":"Edm.String","X":"5"}`, "5"},
		{"boolean", `"X@odata.type":"Edm.Boolean","X":false}`, false},
		{"datetime", `"X@odata.type":"Edm.DateTime","X":"9999-12-31T23:59:59.9999999Z"}`, time.Date(9999, 12, 31, 23, 59, 59, 999999900, time.UTC)},
		{"guid", `"X@odata.type":"Edm.Guid","X":"0f8fad5b-d9cb-469f-a165-70867728950e"}`, g},
	} {
		var e entityMirror
		if err := dp.Decode([]byte(keysJSON+c.body), reflect.ValueOf(&e).Elem()); err != nil {
			t.Errorf("%s: %v", c.name, err)
		} else if got := e.Properties["X"]; !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: X = %T %v, want %T %v", c.name, got, got, c.want, c.want)
		}
	}
	var e entityMirror
	err := dp.Decode([]byte(keysJSON+`"X":92233720368547758070}`), reflect.ValueOf(&e).Elem())
	checkDecodeError(t, "integer beyond Int64 without annotation", err, "X", "beyond Edm.Int64's range")

	// A struct field takes a widening, never a narrowing or another type.
	p := plan(t, typedFields{})
	for _, c := range []struct{ name, body, prop, reason string }{
		{"Int32 by form into int32 field beyond its range", `"I32":2147483648}`, "I32", "stored as Edm.Int64 (a number without annotation, typed by its form)"},
		{"Double by form into an int64 field", `"I64":1.5}`, "I64", "stored as Edm.Double (a number without annotation"},
		{"Int64 by form into a float field", `"F64":5000000000}`, "F64", "stored as Edm.Int64 (a number without annotation"},
		{"annotated Int32 into float32 out of range", `"F32@odata.type":"Edm.Int32","F32":2147483648}`, "F32", "Edm.Int32 value out of range"},
		{"Edm.String annotated bool", `"Lvl@odata.type":"Edm.String","Lvl":true}`, "Lvl", "Edm.String value is a JSON boolean"},
	} {
		var v typedFields
		checkDecodeError(t, c.name, p.Decode([]byte(keysJSON+c.body), reflect.ValueOf(&v).Elem()), c.prop, c.reason)
	}
}
