package codec

import (
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
)

// doubles has every Go type that holds an Edm.Double.
type doubles struct {
	PartitionKey, RowKey string
	F                    float64
	F32                  float32
	PF                   *float64
}

// entityMirror has table.Entity's shape (the codec cannot import table).
type entityMirror struct {
	PartitionKey string
	RowKey       string
	Properties   map[string]any
	ETag         azcore.ETag
	Timestamp    time.Time
}

func dynPlan(t *testing.T) *Plan {
	t.Helper()
	p, err := buildDynamic(reflect.TypeFor[entityMirror](), guidType, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// same reports a == b, NaN equal to NaN and -0 different from 0.
func same(a, b float64) bool {
	return (math.IsNaN(a) && math.IsNaN(b)) || (a == b && math.Signbit(a) == math.Signbit(b))
}

// TestDoubleSpecialsWritten: NaN and the infinities are written as the
// strings Microsoft's SDKs write, annotated, and read back, by struct
// fields of each float type and by table.Entity.
func TestDoubleSpecialsWritten(t *testing.T) {
	p := plan(t, doubles{})
	dp := dynPlan(t)
	for _, c := range []struct {
		x    float64
		text string
	}{
		{math.NaN(), `"NaN"`},
		{math.Inf(1), `"Infinity"`},
		{math.Inf(-1), `"-Infinity"`},
	} {
		t.Run(c.text, func(t *testing.T) {
			x := c.x
			in := doubles{PartitionKey: "p", RowKey: "r", F: x, F32: float32(x), PF: &x}
			body, err := encode(t, p, in)
			if err != nil {
				t.Fatal(err)
			}
			for _, name := range []string{"F", "F32", "PF"} {
				if want := `"` + name + `@odata.type":"Edm.Double","` + name + `":` + c.text; !strings.Contains(string(body), want) {
					t.Errorf("body %s, want it to contain %s", body, want)
				}
			}
			var out doubles
			if err := p.Decode(body, reflect.ValueOf(&out).Elem()); err != nil {
				t.Fatal(err)
			}
			if !same(out.F, x) || !same(float64(out.F32), x) || out.PF == nil || !same(*out.PF, x) {
				t.Errorf("read back F %v, F32 %v, PF %v; want %v", out.F, out.F32, out.PF, x)
			}

			e := entityMirror{PartitionKey: "p", RowKey: "r", Properties: map[string]any{"D": x}}
			body, err = dp.Encode(nil, reflect.ValueOf(e), &storage)
			if err != nil {
				t.Fatal(err)
			}
			if want := `{"PartitionKey":"p","RowKey":"r","D@odata.type":"Edm.Double","D":` + c.text + `}`; string(body) != want {
				t.Errorf("Entity body %s, want %s", body, want)
			}
			var back entityMirror
			if err := dp.Decode(body, reflect.ValueOf(&back).Elem()); err != nil {
				t.Fatal(err)
			}
			if got, ok := back.Properties["D"].(float64); !ok || !same(got, x) {
				t.Errorf("Entity read back %#v, want float64 %v", back.Properties["D"], x)
			}
		})
	}
}

// TestDoubleSpecialsRead: every spelling writers use is read, annotated,
// and by a float field without the annotation too (its type is known);
// table.Entity, which has no field to tell, reads an unannotated one as
// the Edm.String it is; RawEntity carries it as it is.
func TestDoubleSpecialsRead(t *testing.T) {
	p := plan(t, doubles{})
	dp := dynPlan(t)
	rp := rawPlan(t)
	for _, c := range []struct {
		text string
		want float64
	}{
		{"NaN", math.NaN()},
		{"Infinity", math.Inf(1)},
		{"-Infinity", math.Inf(-1)},
		{"INF", math.Inf(1)},
		{"-INF", math.Inf(-1)},
	} {
		for _, annotated := range []bool{true, false} {
			anno := ""
			if annotated {
				anno = `"F@odata.type":"Edm.Double",`
			}
			body := keysJSON + anno + `"F":"` + c.text + `"}`
			var v doubles
			if err := p.Decode([]byte(body), reflect.ValueOf(&v).Elem()); err != nil || !same(v.F, c.want) {
				t.Errorf("struct, %s: F = %v, %v; want %v", body, v.F, err, c.want)
			}
			body32 := strings.ReplaceAll(body, `"F`, `"F32`)
			if err := p.Decode([]byte(body32), reflect.ValueOf(&v).Elem()); err != nil || !same(float64(v.F32), c.want) {
				t.Errorf("struct, %s: F32 = %v, %v; want %v", body32, v.F32, err, c.want)
			}
			bodyP := strings.ReplaceAll(body, `"F`, `"PF`)
			if err := p.Decode([]byte(bodyP), reflect.ValueOf(&v).Elem()); err != nil || v.PF == nil || !same(*v.PF, c.want) {
				t.Errorf("struct, %s: PF = %v, %v; want %v", bodyP, v.PF, err, c.want)
			}

			var e entityMirror
			if err := dp.Decode([]byte(body), reflect.ValueOf(&e).Elem()); err != nil {
				t.Errorf("Entity, %s: %v", body, err)
			}
			if annotated {
				if got, ok := e.Properties["F"].(float64); !ok || !same(got, c.want) {
					t.Errorf("Entity, %s: F = %#v, want float64 %v", body, e.Properties["F"], c.want)
				}
			} else if got := e.Properties["F"]; got != c.text {
				t.Errorf("Entity, %s: F = %#v, want the string %q", body, got, c.text)
			}

			var r rawMirror
			if err := rp.Decode([]byte(body), reflect.ValueOf(&r).Elem()); err != nil {
				t.Errorf("RawEntity, %s: %v", body, err)
			} else if want := "{" + anno + `"F":"` + c.text + `"}`; string(r.Properties) != want {
				t.Errorf("RawEntity, %s: Properties %s, want %s", body, r.Properties, want)
			}
		}
	}
	// Other strings stay strings: a float field refuses them.
	for _, text := range []string{"nan", "inf", "+Infinity", "1.5", ""} {
		var v doubles
		if err := p.Decode([]byte(keysJSON+`"F":"`+text+`"}`), reflect.ValueOf(&v).Elem()); err == nil {
			t.Errorf("unannotated %q into float64: got %v, want a tablekit.DecodeError", text, v.F)
		}
	}
}

// TestNumberValue: an unannotated number is typed by its form, the short
// integers read without ParseInt exactly as ParseInt reads them.
func TestNumberValue(t *testing.T) {
	byParseInt := func(num string) (string, int64, bool) {
		if strings.ContainsAny(num, ".eE") {
			return edmDouble, 0, true
		}
		n, err := strconv.ParseInt(num, 10, 64)
		switch {
		case err != nil:
			return "", 0, false
		case n == int64(int32(n)):
			return edmInt32, n, true
		}
		return edmInt64, n, true
	}
	for _, num := range []string{
		"0", "-0", "7", "-7", "00012", "2147483647", "2147483648", "-2147483648", "-2147483649",
		"999999999999999999", "-999999999999999999", "9223372036854775807", "9223372036854775808",
		"-9223372036854775808", "-9223372036854775809", "1.5", "-0.0", "1e3", "1E3", "+5", "-", "",
		"12a", "--1", "1-",
	} {
		edm, n, p := numberValue(num)
		wantEDM, wantN, ok := byParseInt(num)
		if edm != wantEDM || n != wantN || (p == "") != ok {
			t.Errorf("numberValue(%q) = %q, %d, %q; want %q, %d, ok %v", num, edm, n, p, wantEDM, wantN, ok)
		}
	}
}
