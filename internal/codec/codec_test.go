package codec

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
)

type level int

func (l level) MarshalText() ([]byte, error) {
	switch l {
	case 1:
		return []byte("low"), nil
	case 2:
		return []byte("high"), nil
	}
	return nil, errors.New("unknown level")
}

func (l *level) UnmarshalText(b []byte) error {
	switch string(b) {
	case "low":
		*l = 1
	case "high":
		*l = 2
	default:
		return errors.New("unknown level " + string(b))
	}
	return nil
}

type inner struct {
	A int      `json:"a"`
	B []string `json:"b"`
}

type Meta struct {
	ETag      azcore.ETag `table:",etag"`
	Timestamp time.Time   `table:",timestamp"`
}

type all struct {
	PartitionKey string
	RowKey       string
	S            string
	B            bool
	I            int
	I32          int32
	I8           int8
	U16          uint16
	I64          int64
	U64          uint64
	F            float64
	F32          float32
	T            time.Time
	G            GUID
	Bin          []byte
	PS           *string
	PI           *int64
	PT           *time.Time
	Lvl          level
	Nested       inner  `table:",json"`
	Renamed      string `table:"OtherName"`
	Skipped      string `table:"-"`
	Omit         int    `table:",omitempty"`
	unexported   int
	Meta
}

func plan(t *testing.T, v any) *Plan {
	t.Helper()
	p, err := For(reflect.TypeOf(v), Types{})
	if err != nil {
		t.Fatalf("For(%T): %v", v, err)
	}
	return p
}

func encode(t *testing.T, p *Plan, v any) ([]byte, error) {
	t.Helper()
	return p.Encode(nil, reflect.ValueOf(v), &storage)
}

func TestRoundTripAllTypes(t *testing.T) {
	s := "pointer"
	i64 := int64(math.MinInt64)
	pt := time.Date(2030, 5, 6, 7, 8, 9, 100, time.UTC)
	g, _ := ParseGUID("0f8fad5b-d9cb-469f-a165-70867728950e")
	in := all{
		PartitionKey: "p'k", RowKey: "r\"k ü",
		S: "line1\nline2 \"quoted\" \\ \u2028 😀", B: true, I: math.MaxInt32, I32: math.MinInt32, I8: -8, U16: 65535,
		I64: math.MaxInt64, U64: math.MaxInt64, F: 1.0, F32: 1.5,
		T: time.Date(2024, 2, 29, 23, 59, 59, 123456700, time.FixedZone("X", 3600)),
		G: g, Bin: []byte{0, 1, 2, 255}, PS: &s, PI: &i64, PT: &pt,
		Lvl: 2, Nested: inner{A: 7, B: []string{"x", "y"}}, Renamed: "r", Skipped: "not stored", Omit: 0,
		unexported: 1,
	}
	p := plan(t, in)
	body, err := encode(t, p, in)
	if err != nil {
		t.Fatalf("encode: %v", err)
	}
	if !json.Valid(body) {
		t.Fatalf("encode produced invalid JSON: %s", body)
	}
	var out all
	if err := p.Decode(body, reflect.ValueOf(&out).Elem()); err != nil {
		t.Fatalf("decode: %v", err)
	}
	want := in
	want.T = in.T.UTC()
	want.Skipped = ""
	want.unexported = 0 // unexported fields are not properties
	if !reflect.DeepEqual(out, want) {
		t.Errorf("round trip:\n got %+v\nwant %+v", out, want)
	}
}

func TestEncodeWireTypes(t *testing.T) {
	in := all{PartitionKey: "p", RowKey: "r", I64: 5, F: 1, T: time.Date(2024, 1, 2, 3, 4, 5, 600, time.UTC), Bin: []byte("hi"), I: 3, Lvl: 1}
	p := plan(t, in)
	body, err := encode(t, p, in)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		key  string
		want any
	}{
		{"I64@odata.type", "Edm.Int64"},
		{"I64", "5"},
		{"F@odata.type", "Edm.Double"},
		{"F", 1.0},
		{"T@odata.type", "Edm.DateTime"},
		{"T", "2024-01-02T03:04:05.0000006Z"},
		{"G@odata.type", "Edm.Guid"},
		{"G", "00000000-0000-0000-0000-000000000000"},
		{"Bin@odata.type", "Edm.Binary"},
		{"Bin", "aGk="},
		{"I", 3.0},
		{"Lvl", "low"},
	}
	for _, tc := range tests {
		if got := m[tc.key]; got != tc.want {
			t.Errorf("%s = %#v, want %#v", tc.key, got, tc.want)
		}
	}
	for _, absent := range []string{"Skipped", "Omit", "PS", "ETag", "Timestamp", "I@odata.type", "S@odata.type"} {
		if _, ok := m[absent]; ok {
			t.Errorf("%s present in %s, want absent", absent, body)
		}
	}
	if !strings.Contains(string(body), `"F":1,`) && !strings.Contains(string(body), `"F":1}`) {
		t.Errorf("double 1.0 encoded as %s", body)
	}
}

func TestDynamicNumbers(t *testing.T) {
	p := &Plan{dyn: &dynamic{}}
	cases := []struct {
		raw, typed string
		want       any
	}{
		{"1", "", int32(1)},
		{"-2147483648", "", int32(-2147483648)},
		{"2147483648", "", int64(2147483648)},
		{"1.0", "", 1.0},
		{"1e3", "", 1000.0},
		{"1", "Edm.Double", 1.0},
		{"5", "Edm.Int32", int32(5)},
	}
	for _, c := range cases {
		got, err := p.dynDecode(&token{name: "N", kind: 'n', str: c.raw, typed: c.typed})
		if err != nil || got != c.want {
			t.Errorf("%s (%q): got %T %v, %v, want %T %v", c.raw, c.typed, got, got, err, c.want, c.want)
		}
	}
	for _, typed := range []string{"Edm.Guid", "Edm.Int64"} {
		if _, err := p.dynDecode(&token{name: "N", kind: 'n', str: "1", typed: typed}); err == nil {
			t.Errorf("number annotated %s: got nil error, want a tablekit.DecodeError", typed)
		}
	}
}
