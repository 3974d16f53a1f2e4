package codec

import (
	"errors"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tablekit/tablekit"
)

type small struct {
	PartitionKey string
	RowKey       string
	S            string
	Bin          []byte
	I            int
	U64          uint64
	F            float64
	T            time.Time
	Lvl          level
}

func TestValidation(t *testing.T) {
	base := func() small { return small{PartitionKey: "p", RowKey: "r", Lvl: 1} }
	big := strings.Repeat("x", storage.MaxString.Max)
	tests := []struct {
		name     string
		mut      func(*small)
		property string
		rule     string
	}{
		{"pk empty", func(s *small) { s.PartitionKey = "" }, "PartitionKey", RuleKeyEmpty},
		{"rk empty", func(s *small) { s.RowKey = "" }, "RowKey", RuleKeyEmpty},
		{"pk slash", func(s *small) { s.PartitionKey = "a/b" }, "PartitionKey", RuleKeyCharacter},
		{"pk backslash", func(s *small) { s.PartitionKey = `a\b` }, "PartitionKey", RuleKeyCharacter},
		{"rk hash", func(s *small) { s.RowKey = "a#b" }, "RowKey", RuleKeyCharacter},
		{"rk question", func(s *small) { s.RowKey = "a?b" }, "RowKey", RuleKeyCharacter},
		{"rk control", func(s *small) { s.RowKey = "a\x01b" }, "RowKey", RuleKeyCharacter},
		{"rk del", func(s *small) { s.RowKey = "a\x7fb" }, "RowKey", RuleKeyCharacter},
		{"rk c1 control", func(s *small) { s.RowKey = "a\u0085b" }, "RowKey", RuleKeyCharacter},
		{"pk too long", func(s *small) { s.PartitionKey = strings.Repeat("k", storage.PartitionKey.Max+1) }, "PartitionKey", RuleKeyTooLong},
		{"rk too long in UTF-16", func(s *small) { s.RowKey = strings.Repeat("😀", storage.PartitionKey.Max/2+1) }, "RowKey", RuleKeyTooLong},
		{"key invalid utf8", func(s *small) { s.RowKey = "\xff" }, "RowKey", RuleInvalidUTF8},
		{"string too long", func(s *small) { s.S = big + "y" }, "S", RuleStringTooLong},
		{"string too long in UTF-16", func(s *small) { s.S = strings.Repeat("😀", storage.MaxString.Max/2+1) }, "S", RuleStringTooLong},
		{"string invalid utf8", func(s *small) { s.S = "ok\xc3" }, "S", RuleInvalidUTF8},
		{"binary too large", func(s *small) { s.Bin = make([]byte, storage.MaxBinaryBytes+1) }, "Bin", RuleBinaryTooLarge},
		{"int32 overflow", func(s *small) { s.I = math.MaxInt32 + 1 }, "I", RuleInt32Range},
		{"int32 underflow", func(s *small) { s.I = math.MinInt32 - 1 }, "I", RuleInt32Range},
		{"uint64 over int64", func(s *small) { s.U64 = math.MaxInt64 + 1 }, "U64", RuleInt64Range},
		{"time before 1601", func(s *small) { s.T = time.Date(1600, 12, 31, 0, 0, 0, 0, time.UTC) }, "T", RuleDateTimeRange},
		{"text marshal error", func(s *small) { s.Lvl = 9 }, "Lvl", RuleMarshal},
	}
	p := plan(t, small{})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := base()
			tc.mut(&v)
			_, err := p.Encode(nil, reflect.ValueOf(v), &storage)
			var ve *tablekit.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("err = %v, want *tablekit.ValidationError", err)
			}
			if !errors.Is(err, tablekit.ErrInvalid) {
				t.Errorf("errors.Is(err, tablekit.ErrInvalid) = false")
			}
			if ve.Field != tc.property || ve.Rule != tc.rule {
				t.Errorf("got (%s, %s), want (%s, %s)", ve.Field, ve.Rule, tc.property, tc.rule)
			}
			if strings.Contains(err.Error(), strings.Repeat("x", 100)) {
				t.Errorf("error message repeats the value")
			}
		})
	}
	// Limits themselves are accepted.
	ok := []func(*small){
		func(s *small) { s.PartitionKey = strings.Repeat("k", storage.PartitionKey.Max) },
		func(s *small) { s.S = big },
		func(s *small) { s.Bin = make([]byte, storage.MaxBinaryBytes) },
		func(s *small) { s.I = math.MaxInt32 },
		func(s *small) { s.U64 = math.MaxInt64 },
		func(s *small) { s.T = time.Date(1601, 1, 1, 0, 0, 0, 0, time.UTC) },
		func(s *small) { s.T = time.Date(9999, 12, 31, 23, 59, 59, 999999900, time.UTC) },
		func(s *small) { s.RowKey = "O'Brien \"quoted\" ü 😀" },
	}
	for i, mut := range ok {
		v := base()
		mut(&v)
		if _, err := p.Encode(nil, reflect.ValueOf(v), &storage); err != nil {
			t.Errorf("case %d: limit value rejected: %v", i, err)
		}
	}
}

type wide struct {
	PartitionKey                                                              string
	RowKey                                                                    string
	B0, B1, B2, B3, B4, B5, B6, B7, B8, B9, B10, B11, B12, B13, B14, B15, B16 []byte
}

func TestEntityTooLarge(t *testing.T) {
	p := plan(t, wide{})
	v := wide{PartitionKey: "p", RowKey: "r"}
	rv := reflect.ValueOf(&v).Elem()
	// Service formula: 4 + 2*(len(pk)+len(rk)) + per property
	// 8 + 2*len(name) + 4 + len(binary).
	size := 4 + 2*2
	for i := 0; i < 15; i++ {
		name := "B" + strconv.Itoa(i)
		rv.FieldByName(name).SetBytes(make([]byte, storage.MaxBinaryBytes))
		size += 8 + 2*len(name) + 4 + storage.MaxBinaryBytes
	}
	room := storage.MaxEntityBytes - size - (8 + 2*len("B15") + 4)
	rv.FieldByName("B15").SetBytes(make([]byte, room))
	if _, err := p.Encode(nil, rv, &storage); err != nil {
		t.Fatalf("entity of exactly 1 MiB rejected: %v", err)
	}
	rv.FieldByName("B15").SetBytes(make([]byte, room+1))
	_, err := p.Encode(nil, rv, &storage)
	var ve *tablekit.ValidationError
	if !errors.As(err, &ve) || ve.Rule != RuleEntityTooLarge {
		t.Fatalf("1 MiB + 1 byte: err = %v, want %s", err, RuleEntityTooLarge)
	}
}

func TestTooManyProperties(t *testing.T) {
	fields := []reflect.StructField{
		{Name: "PartitionKey", Type: reflect.TypeFor[string]()},
		{Name: "RowKey", Type: reflect.TypeFor[string]()},
	}
	for i := 0; i < storage.MaxProperties+1; i++ {
		fields = append(fields, reflect.StructField{Name: "P" + strconv.Itoa(i), Type: reflect.TypeFor[int32]()})
	}
	_, err := For(reflect.StructOf(fields), Types{})
	if !errors.Is(err, tablekit.ErrInvalid) || !strings.Contains(err.Error(), "252") {
		t.Fatalf("253 properties: err = %v, want tablekit.ErrInvalid about 252", err)
	}
	ok, err := For(reflect.StructOf(fields[:2+storage.MaxProperties]), Types{})
	if err != nil || len(ok.fields) != storage.MaxProperties {
		t.Fatalf("252 properties: err = %v", err)
	}
}

func TestTypeErrors(t *testing.T) {
	type noKeys struct{ A string }
	type intKey struct {
		PartitionKey int
		RowKey       string
	}
	type badTag struct {
		PartitionKey, RowKey string
		A                    string `table:",bogus"`
	}
	type mapField struct {
		PartitionKey, RowKey string
		M                    map[string]int
	}
	type structField struct {
		PartitionKey, RowKey string
		S                    inner
	}
	type sliceField struct {
		PartitionKey, RowKey string
		S                    []int
	}
	type dupName struct {
		PartitionKey, RowKey string
		A                    string
		B                    string `table:"A"`
	}
	type badName struct {
		PartitionKey, RowKey string
		A                    string `table:"1abc"`
	}
	type reserved struct {
		PartitionKey, RowKey string
		A                    time.Time `table:"Timestamp,omitempty"`
		B                    string    `table:"Timestamp"`
	}
	type iface struct {
		PartitionKey, RowKey string
		X                    any
	}
	type chanField struct {
		PartitionKey, RowKey string
		C                    chan int
	}
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"not a struct", 5, "must be a struct"},
		{"no keys", noKeys{}, "PartitionKey and RowKey"},
		{"int key", intKey{}, "must be a string"},
		{"unknown tag option", badTag{}, "unknown tag option"},
		{"map", mapField{}, ",json"},
		{"struct", structField{}, "json"},
		{"slice", sliceField{}, "json"},
		{"duplicate name", dupName{}, "also used"},
		{"invalid name", badName{}, "not a valid identifier"},
		{"reserved name", reserved{}, "Timestamp"},
		{"interface", iface{}, "no EDM type"},
		{"chan", chanField{}, "no EDM type"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := For(reflect.TypeOf(tc.v), Types{})
			var te *tablekit.ValidationError
			if !errors.As(err, &te) || !errors.Is(err, tablekit.ErrInvalid) {
				t.Fatalf("err = %v, want a *tablekit.ValidationError", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %q, want it to mention %q", err, tc.want)
			}
		})
	}
}

func TestDecodeMismatch(t *testing.T) {
	p := plan(t, small{})
	tests := []struct {
		name, body, property string
	}{
		{"string into int", `{"PartitionKey":"p","RowKey":"r","I":"x"}`, "I"},
		{"int64 overflow into int32 field", `{"PartitionKey":"p","RowKey":"r","I@odata.type":"Edm.Int64","I":"99999999999999999999"}`, "I"},
		{"negative into uint64", `{"PartitionKey":"p","RowKey":"r","U64@odata.type":"Edm.Int64","U64":"-1"}`, "U64"},
		{"bool into string", `{"PartitionKey":"p","RowKey":"r","S":true}`, "S"},
		{"bad time", `{"PartitionKey":"p","RowKey":"r","T@odata.type":"Edm.DateTime","T":"yesterday"}`, "T"},
		{"bad base64", `{"PartitionKey":"p","RowKey":"r","Bin@odata.type":"Edm.Binary","Bin":"!!"}`, "Bin"},
		{"guid into string", `{"PartitionKey":"p","RowKey":"r","S@odata.type":"Edm.Guid","S":"0f8fad5b-d9cb-469f-a165-70867728950e"}`, "S"},
		{"text unmarshal error", `{"PartitionKey":"p","RowKey":"r","Lvl":"medium"}`, "Lvl"},
		{"numeric key", `{"PartitionKey":1,"RowKey":"r"}`, "PartitionKey"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var v small
			err := p.Decode([]byte(tc.body), reflect.ValueOf(&v).Elem())
			var de *tablekit.DecodeError
			if !errors.As(err, &de) || !errors.Is(err, tablekit.ErrDecode) {
				t.Fatalf("err = %v, want *tablekit.DecodeError", err)
			}
			if de.Property != tc.property {
				t.Errorf("property = %q, want %q", de.Property, tc.property)
			}
		})
	}
}

func TestDecodeLenient(t *testing.T) {
	type target struct {
		PartitionKey, RowKey string
		I64                  int64
		F                    float64
		Missing              string
		Meta
	}
	p := plan(t, target{})
	body := `{"odata.metadata":"x","odata.etag":"W/\"datetime'2024-01-01T00%3A00%3A00.0000001Z'\"","PartitionKey":"p","RowKey":"r",` +
		`"Timestamp@odata.type":"Edm.DateTime","Timestamp":"2024-01-01T00:00:00.0000001Z","I64":42,"F":3,"Unknown":{"nested":[1,2,{"x":"}"}]},"Extra":null}`
	var v target
	v.Missing = "kept"
	if err := p.Decode([]byte(body), reflect.ValueOf(&v).Elem()); err != nil {
		t.Fatal(err)
	}
	want := target{PartitionKey: "p", RowKey: "r", I64: 42, F: 3, Missing: "kept",
		Meta: Meta{ETag: `W/"datetime'2024-01-01T00%3A00%3A00.0000001Z'"`, Timestamp: time.Date(2024, 1, 1, 0, 0, 0, 100, time.UTC)}}
	if !reflect.DeepEqual(v, want) {
		t.Errorf("got %+v\nwant %+v", v, want)
	}
}

func TestDecodeSyntaxErrors(t *testing.T) {
	p := plan(t, small{})
	for _, body := range []string{``, `[]`, `{`, `{"a"}`, `{"a":}`, `{"a":tru}`, `{"a":"x}`, `{"a":1,}`, `{"a":1} x`, `{"a":"\x01"}`, `{"a":"\uZZZZ"}`, `{"a":-}`} {
		var v small
		if err := p.Decode([]byte(body), reflect.ValueOf(&v).Elem()); !errors.Is(err, tablekit.ErrDecode) {
			t.Errorf("Decode(%q) = %v, want tablekit.ErrDecode", body, err)
		}
	}
}

func TestStringEscapes(t *testing.T) {
	p := plan(t, small{})
	body := `{"PartitionKey":"p","RowKey":"r","S":"a\"b\\c\/d\b\f\n\r\t\u00e9\ud83d\ude00\ud800x"}`
	var v small
	if err := p.Decode([]byte(body), reflect.ValueOf(&v).Elem()); err != nil {
		t.Fatal(err)
	}
	if want := "a\"b\\c/d\b\f\n\r\té😀\uFFFDx"; v.S != want {
		t.Errorf("S = %q, want %q", v.S, want)
	}
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"PartitionKey":"p","RowKey":"r","S":"x","I":1,"F@odata.type":"Edm.Double","F":"NaN"}`))
	f.Add([]byte(`{"PartitionKey":"p","RowKey":"r","Bin@odata.type":"Edm.Binary","Bin":"AAE=","T":"2024-01-01T00:00:00Z"}`))
	f.Add([]byte(`{"a":{"b":[1,"\u00e9"]},"U64@odata.type":"Edm.Int64","U64":"18446744073709551615"}`))
	p, err := For(reflect.TypeFor[all](), Types{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var v all
		if err := p.Decode(data, reflect.ValueOf(&v).Elem()); err != nil {
			return
		}
		// Whatever decodes must encode or fail validation, never panic.
		_, _ = p.Encode(nil, reflect.ValueOf(v), &storage)
	})
}
