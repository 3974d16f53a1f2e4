package table_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/internal/codec"
	"github.com/tablekit/tablekit/table"
)

// edges holds every EDM type at its edges, as Table[Entity] must keep it.
func edges() map[string]any {
	g, _ := table.ParseGUID("01234567-89ab-cdef-0123-456789abcdef")
	return map[string]any{
		"Str":      "O'Brien \u00e9\U0001F600 \"q\" \\",
		"StrEmpty": "",
		"True":     true,
		"False":    false,
		"I32Min":   int32(math.MinInt32),
		"I32Max":   int32(math.MaxInt32),
		"I32Zero":  int32(0),
		"I64Min":   int64(math.MinInt64),
		"I64Max":   int64(math.MaxInt64),
		"I64Small": int64(1),
		"DHalf":    0.5,
		"DNeg":     -2.5,
		"DBig":     1e300,
		"DTiny":    5e-324,
		"DMax":     math.MaxFloat64,
		"When":     time.Date(2024, 2, 29, 23, 59, 59, 123456700, time.UTC),
		"WhenMin":  time.Date(1601, 1, 1, 0, 0, 0, 0, time.UTC),
		"WhenMax":  time.Date(9999, 12, 31, 23, 59, 59, 999999900, time.UTC),
		"ID":       g,
		"IDZero":   table.GUID{},
		"Bin":      []byte{0, 1, 2, 0xff},
		"BinEmpty": []byte{},
		"BinMax":   make([]byte, 64<<10),
	}
}

func TestEntityRoundTrip(t *testing.T) {
	ctx := testenv.Ctx(t)
	tbl, _ := newRecordedTable[table.Entity](t, nil)
	want := table.Entity{PartitionKey: "p'1", RowKey: "r1", Properties: edges()}
	res, err := tbl.Add(ctx, want)
	if err != nil {
		t.Fatal(err)
	}
	got, err := tbl.Get(ctx, want.PartitionKey, want.RowKey, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.ETag != res.ETag || got.Timestamp.IsZero() {
		t.Errorf("meta: got %q %v, want ETag %q and a Timestamp", got.ETag, got.Timestamp, res.ETag)
	}
	checkProps(t, got.Properties, want.Properties)
	// Read-modify-write keeps every type: the stored bytes read back equal.
	if _, err := tbl.Update(ctx, got, table.Replace, got.ETag); err != nil {
		t.Fatal(err)
	}
	again, err := tbl.Get(ctx, want.PartitionKey, want.RowKey, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkProps(t, again.Properties, want.Properties)
	if _, err := tbl.Update(ctx, got, table.Replace, got.ETag); !errors.Is(err, tablekit.ErrPreconditionFailed) {
		t.Errorf("stale ETag: got %v, want tablekit.ErrPreconditionFailed", err)
	}
}

// checkProps compares property maps value by value, Go types included.
func checkProps(t *testing.T, got, want map[string]any) {
	t.Helper()
	for name, w := range want {
		g, ok := got[name]
		switch {
		case !ok:
			t.Errorf("%s: missing, want %T %v", name, w, short(w))
		case reflect.TypeOf(g) != reflect.TypeOf(w) || !reflect.DeepEqual(g, w):
			t.Errorf("%s: got %T %v, want %T %v", name, g, short(g), w, short(w))
		}
	}
	for name, g := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("%s: got unexpected %T %v", name, g, short(g))
		}
	}
}

func short(v any) any {
	if b, ok := v.([]byte); ok && len(b) > 8 {
		return len(b)
	}
	return v
}

// typedAll has a field of every Go type the typed path maps.
type typedAll struct {
	PartitionKey string
	RowKey       string
	S            string
	B            bool
	I            int
	I8           int8
	I32          int32
	I64          int64
	U32          uint32
	F32          float32
	F64          float64
	Whole        float64
	When         time.Time
	Never        time.Time
	ID           table.GUID
	Bin          []byte
	Ptr          *string
	Lvl          level
	Home         Address `table:",json"`
	table.Meta
}

func TestEntityTypedInterop(t *testing.T) {
	ctx := testenv.Ctx(t)
	typed, _ := newRecordedTable[typedAll](t, nil)
	dyn, err := table.Wrap[table.Entity](typed.Client(), typed.Name())
	if err != nil {
		t.Fatal(err)
	}
	g, _ := table.ParseGUID("fedcba98-7654-3210-fedc-ba9876543210")
	when := time.Date(2030, 1, 2, 3, 4, 5, 600, time.UTC)
	in := typedAll{PartitionKey: "p", RowKey: "typed", S: "s", B: true, I: -7, I8: 8, I32: 32, I64: 1 << 40,
		U32: 4e9, F32: 1.5, F64: 0.1, Whole: 3.25, When: when, ID: g, Bin: []byte("x"), Lvl: 2, Home: Address{City: "c"}}
	if _, err := typed.Add(ctx, in); err != nil {
		t.Fatal(err)
	}
	got, err := dyn.Get(ctx, "p", "typed", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"S": "s", "B": true, "I": int32(-7), "I8": int32(8), "I32": int32(32), "I64": int64(1 << 40),
		"U32": int64(4e9), "F32": 1.5, "F64": 0.1, "Whole": 3.25, "When": when.Truncate(100), "ID": g, "Bin": []byte("x"),
		"Lvl": "high", "Home": `{"city":"c","zip":""}`}
	checkProps(t, got.Properties, want)
	// The same conversion without a request: Marshal as T, Unmarshal as Entity.
	asEntity, err := table.As[table.Entity](typed)
	if err != nil {
		t.Fatal(err)
	}
	body, err := typed.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	conv, err := asEntity.Unmarshal(body)
	if err != nil {
		t.Fatal(err)
	}
	checkProps(t, conv.Properties, want)

	// The reverse: written dynamically, read typed.
	dynIn := table.Entity{PartitionKey: "p", RowKey: "dyn", Properties: map[string]any{
		"S": "t", "I": int32(5), "I64": int32(6), "F64": 2.0, "When": when, "ID": g, "Lvl": "low", "Extra": "ignored"}}
	if _, err := dyn.Add(ctx, dynIn); err != nil {
		t.Fatal(err)
	}
	back, err := typed.Get(ctx, "p", "dyn", nil)
	if err != nil {
		t.Fatal(err)
	}
	wantTyped := typedAll{PartitionKey: "p", RowKey: "dyn", S: "t", I: 5, I64: 6, F64: 2, When: when.Truncate(100), ID: g, Lvl: 1, Meta: back.Meta}
	if !reflect.DeepEqual(back, wantTyped) {
		t.Errorf("typed read: got %+v, want %+v", back, wantTyped)
	}
	body, err = asEntity.Marshal(dynIn)
	if err != nil {
		t.Fatal(err)
	}
	fromDyn, err := typed.Unmarshal(body)
	wantTyped.Meta = table.Meta{}
	if err != nil || !reflect.DeepEqual(fromDyn, wantTyped) {
		t.Errorf("Entity to typedAll by Marshal and Unmarshal: got %+v, %v, want %+v", fromDyn, err, wantTyped)
	}
}

func TestEntityRefused(t *testing.T) {
	ctx := testenv.Ctx(t)
	tbl, rec := newRecordedTable[table.Entity](t, nil)
	type point struct{ X int }
	s := "x"
	many := map[string]any{}
	for i := range 253 {
		many["P"+strings.Repeat("x", i%3)+string(rune('a'+i%26))+string(rune('a'+i/26))] = int32(i)
	}
	big := map[string]any{}
	for i := range 17 {
		big["B"+string(rune('a'+i))] = make([]byte, 64<<10)
	}
	cases := []struct {
		name  string
		props map[string]any
		prop  string
		rule  string
	}{
		{"int", map[string]any{"N": 1}, "N", codec.RuleDynamicType},
		{"int8", map[string]any{"N": int8(1)}, "N", codec.RuleDynamicType},
		{"int16", map[string]any{"N": int16(1)}, "N", codec.RuleDynamicType},
		{"uint", map[string]any{"N": uint(1)}, "N", codec.RuleDynamicType},
		{"uint32", map[string]any{"N": uint32(1)}, "N", codec.RuleDynamicType},
		{"uint64", map[string]any{"N": uint64(1)}, "N", codec.RuleDynamicType},
		{"float32", map[string]any{"F": float32(1)}, "F", codec.RuleDynamicType},
		{"struct", map[string]any{"S": point{}}, "S", codec.RuleDynamicType},
		{"pointer", map[string]any{"P": &s}, "P", codec.RuleDynamicType},
		{"map", map[string]any{"M": map[string]any{}}, "M", codec.RuleDynamicType},
		{"slice", map[string]any{"L": []string{"a"}}, "L", codec.RuleDynamicType},
		{"nil", map[string]any{"Z": nil}, "Z", codec.RuleDynamicType},
		{"aztables type", map[string]any{"A": table.Meta{}}, "A", codec.RuleDynamicType},
		{"zero time", map[string]any{"T": time.Time{}}, "T", codec.RuleDateTimeRange},
		{"long string", map[string]any{"S": strings.Repeat("a", 32<<10+1)}, "S", codec.RuleStringTooLong},
		{"bad UTF-8", map[string]any{"S": "\xff"}, "S", codec.RuleInvalidUTF8},
		{"big binary", map[string]any{"B": make([]byte, 64<<10+1)}, "B", codec.RuleBinaryTooLarge},
		{"bad name", map[string]any{"a-b": "x"}, "a-b", codec.RulePropertyName},
		{"system name", map[string]any{"Timestamp": "x"}, "Timestamp", codec.RulePropertyName},
		{"too many", many, "(entity)", codec.RuleTooManyProperties},
		{"too large", big, "(entity)", codec.RuleEntityTooLarge},
	}
	before := rec.Count()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := tbl.Add(ctx, table.Entity{PartitionKey: "p", RowKey: "r", Properties: c.props})
			var ve *tablekit.ValidationError
			if !errors.As(err, &ve) || ve.Field != c.prop || ve.Rule != c.rule {
				t.Fatalf("got %v, want a tablekit.ValidationError for %s: %s", err, c.prop, c.rule)
			}
		})
	}
	if _, err := tbl.Add(ctx, table.Entity{PartitionKey: "p/", RowKey: "r"}); !errors.Is(err, tablekit.ErrInvalid) {
		t.Errorf("bad key: got %v, want tablekit.ErrInvalid", err)
	}
	if n := rec.Count(); n != before {
		t.Errorf("requests sent: got %d, want 0", n-before)
	}
}

// wireBody is a transport that keeps the last response body as it came
// off the wire, before aztables decodes and re-encodes it.
type wireBody struct {
	next *http.Client
	last []byte
}

func (w *wireBody) Do(req *http.Request) (*http.Response, error) {
	resp, err := w.next.Do(req)
	if err != nil {
		return resp, err
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if req.Method == http.MethodGet {
		w.last = b
	}
	resp.Body = io.NopCloser(bytes.NewReader(b))
	return resp, err
}

// TestEntityWholeDouble pins down where a whole Double's type lives:
// Azurite sends 1.0 unannotated, and the decoder reads it as float64, from
// the wire and through Get. aztables re-encodes what it receives and turns
// 1.0 into 1, so through a client given to Wrap the same value reads as an
// Int32.
func TestEntityWholeDouble(t *testing.T) {
	ctx := testenv.Ctx(t)
	wb := &wireBody{next: testenv.TunedClient()}
	env := testenv.Azurite(t)
	svc, err := table.NewServiceWithSharedKey(env.Endpoint, env.Account, env.Key, &table.Options{Transport: wb})
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := table.New[table.Entity](svc, testenv.TableName(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.CreateTable(ctx, tbl.Name()); err != nil {
		t.Fatal(err)
	}
	defer svc.DeleteTable(context.WithoutCancel(ctx), tbl.Name())
	want := map[string]any{"Whole": 1.0, "Zero": 0.0, "Neg": -3.0, "Big": 1e20, "Int": int32(1)}
	if _, err := tbl.Add(ctx, table.Entity{PartitionKey: "p", RowKey: "r", Properties: want}); err != nil {
		t.Fatal(err)
	}
	e, err := tbl.Get(ctx, "p", "r", nil)
	if err != nil {
		t.Fatal(err)
	}
	checkProps(t, e.Properties, want)
	got, err := tbl.Unmarshal(wb.last)
	if err != nil {
		t.Fatal(err)
	}
	checkProps(t, got.Properties, want)

	// Only the whole Double: aztables writes 1e20 as 100000000000000000000,
	// which is no Int32, Int64 or Double a decoder can tell.
	if _, err := tbl.Add(ctx, table.Entity{PartitionKey: "p", RowKey: "whole", Properties: map[string]any{"Whole": 1.0}}); err != nil {
		t.Fatal(err)
	}
	wrapped, err := table.Wrap[table.Entity](tbl.Client(), tbl.Name())
	if err != nil {
		t.Fatal(err)
	}
	if e, err = wrapped.Get(ctx, "p", "whole", nil); err != nil {
		t.Fatal(err)
	}
	if got, want := e.Properties["Whole"], int32(1); got != want {
		t.Errorf("Whole through Wrap: got %v (%T), want %v (%T)", got, got, want, want)
	}
}
