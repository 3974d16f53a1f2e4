package codec

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tablekit/tablekit"
)

// typedFields has one field of each kind whose stored type is checked.
type typedFields struct {
	PartitionKey, RowKey string
	When                 time.Time
	ID                   GUID
	Blob                 []byte
	I32                  int32
	I64                  int64
	F64                  float64
	F32                  float32
	Lvl                  level
}

// parsed takes the text forms other clients store as Edm.String.
type parsed struct {
	PartitionKey, RowKey string
	When                 time.Time `table:",parse"`
	ID                   GUID      `table:",parse"`
	Blob                 []byte    `table:",parse"`
}

const keysJSON = `{"PartitionKey":"p","RowKey":"r",`

// TestDecodeRefusesRetyping checks that a stored value is taken only by a
// field of its own EDM type or a lossless widening of it.
func TestDecodeRefusesRetyping(t *testing.T) {
	p := plan(t, typedFields{})
	tests := []struct {
		name, body, property, reason string
	}{
		{"string into time", `"When":"2020-01-01T00:00:00Z"}`, "When", "stored as Edm.String, field When (time.Time) wants Edm.DateTime"},
		{"string into guid", `"ID":"0f8fad5b-d9cb-469f-a165-70867728950e"}`, "ID", "stored as Edm.String, field ID (codec.GUID) wants Edm.Guid"},
		{"string into binary", `"Blob":"AAE="}`, "Blob", "stored as Edm.String, field Blob ([]uint8) wants Edm.Binary"},
		{"annotated string into time", `"When@odata.type":"Edm.String","When":"2020-01-01T00:00:00Z"}`, "When", "wants Edm.DateTime"},
		{"guid into time", `"When@odata.type":"Edm.Guid","When":"0f8fad5b-d9cb-469f-a165-70867728950e"}`, "When", "stored as Edm.Guid"},
		{"binary into guid", `"ID@odata.type":"Edm.Binary","ID":"AAE="}`, "ID", "stored as Edm.Binary"},
		{"int64 narrows into int32", `"I32@odata.type":"Edm.Int64","I32":"5"}`, "I32", "stored as Edm.Int64, field I32 (int32) wants Edm.Int32"},
		{"int64 into double", `"F64@odata.type":"Edm.Int64","F64":"5"}`, "F64", "stored as Edm.Int64"},
		{"double into int64", `"I64@odata.type":"Edm.Double","I64":5.0}`, "I64", "stored as Edm.Double"},
		{"inexact double into float32", `"F32@odata.type":"Edm.Double","F32":0.1}`, "F32", "does not fit float32 exactly"},
		{"guid into TextUnmarshaler", `"Lvl@odata.type":"Edm.Guid","Lvl":"0f8fad5b-d9cb-469f-a165-70867728950e"}`, "Lvl", "stored as Edm.Guid"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var v typedFields
			err := p.Decode([]byte(keysJSON+tc.body), reflect.ValueOf(&v).Elem())
			var de *tablekit.DecodeError
			if !errors.As(err, &de) || !errors.Is(err, tablekit.ErrDecode) {
				t.Fatalf("err = %v, want *tablekit.DecodeError", err)
			}
			if de.Property != tc.property || !strings.Contains(de.Reason, tc.reason) {
				t.Errorf("got property %q reason %q, want %q containing %q", de.Property, de.Reason, tc.property, tc.reason)
			}
		})
	}
}

// TestDecodeWidens checks the lossless widenings the decoder accepts.
func TestDecodeWidens(t *testing.T) {
	p := plan(t, typedFields{})
	body := keysJSON + `"I64":7,"F64":3,"F32@odata.type":"Edm.Double","F32":0.5,` +
		`"When@odata.type":"Edm.DateTime","When":"2020-01-01T00:00:00Z","ID@odata.type":"Edm.Guid","ID":"0f8fad5b-d9cb-469f-a165-70867728950e","Blob@odata.type":"Edm.Binary","Blob":"AAE="}`
	var got typedFields
	if err := p.Decode([]byte(body), reflect.ValueOf(&got).Elem()); err != nil {
		t.Fatal(err)
	}
	id, _ := ParseGUID("0f8fad5b-d9cb-469f-a165-70867728950e")
	want := typedFields{PartitionKey: "p", RowKey: "r", I64: 7, F64: 3, F32: 0.5, When: time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC), ID: id, Blob: []byte{0, 1}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}

// TestParseOption checks that "parse" fields read and write Edm.String
// text, and refuse the annotated types they would otherwise re-type.
func TestParseOption(t *testing.T) {
	p := plan(t, parsed{})
	body := keysJSON + `"When":"2020-01-01T00:00:00Z","ID":"0f8fad5b-d9cb-469f-a165-70867728950e","Blob":"AAE="}`
	var got parsed
	if err := p.Decode([]byte(body), reflect.ValueOf(&got).Elem()); err != nil {
		t.Fatal(err)
	}
	id, _ := ParseGUID("0f8fad5b-d9cb-469f-a165-70867728950e")
	want := parsed{PartitionKey: "p", RowKey: "r", When: time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC), ID: id, Blob: []byte{0, 1}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	out, err := encode(t, p, want)
	if err != nil {
		t.Fatal(err)
	}
	if wantJSON := body; string(out) != wantJSON {
		t.Errorf("encode = %s\nwant   %s", out, wantJSON)
	}
	var v parsed
	err = p.Decode([]byte(keysJSON+`"When@odata.type":"Edm.DateTime","When":"2020-01-01T00:00:00Z"}`), reflect.ValueOf(&v).Elem())
	if !errors.Is(err, tablekit.ErrDecode) {
		t.Errorf("annotated DateTime into a parse field: err = %v, want tablekit.ErrDecode", err)
	}
}

func TestParseOptionOnlyForTextTypes(t *testing.T) {
	type bad struct {
		PartitionKey, RowKey string
		N                    int64 `table:",parse"`
	}
	if _, err := For(reflect.TypeFor[bad](), Types{}); !errors.Is(err, tablekit.ErrInvalid) {
		t.Errorf("parse on int64: err = %v, want tablekit.ErrInvalid", err)
	}
}
