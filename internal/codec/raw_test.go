package codec

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/internal/wire"
)

// rawMirror has table.RawEntity's shape (the codec cannot import table).
type rawMirror struct {
	PartitionKey string
	RowKey       string
	Properties   []byte
	ETag         azcore.ETag
	Timestamp    time.Time
}

func rawPlan(t testing.TB) *Plan {
	t.Helper()
	p, err := buildRaw(reflect.TypeFor[rawMirror]())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRawDecodeEncode(t *testing.T) {
	p := rawPlan(t)
	for _, c := range []struct {
		name, in, props, out string
	}{
		{"metadata dropped, members kept as they are",
			`{"odata.metadata":"m","odata.etag":"W/\"1\"","PartitionKey":"p","RowKey":"r","Timestamp@odata.type":"Edm.DateTime","Timestamp":"2024-01-02T03:04:05.1234567Z","A":"x","N@odata.type":"Edm.Int64","N":"5"}`,
			`{"A":"x","N@odata.type":"Edm.Int64","N":"5"}`,
			`{"PartitionKey":"p","RowKey":"r","A":"x","N@odata.type":"Edm.Int64","N":"5"}`},
		{"whitespace and escaped names",
			` { "PartitionKey" : "p" , "RowKey":"r" , "caf\u00e9" : "x\"y" , "B" : true } `,
			`{"caf\u00e9" : "x\"y","B" : true}`,
			`{"PartitionKey":"p","RowKey":"r","caf\u00e9" : "x\"y","B" : true}`},
		{"numbers typed by form",
			`{"PartitionKey":"p","RowKey":"r","I":7,"D":1.0,"E":2e3,"L":5000000000,"T@odata.type":"Edm.Double","T":3}`,
			`{"I":7,"D@odata.type":"Edm.Double","D":1.0,"E@odata.type":"Edm.Double","E":2e3,"L@odata.type":"Edm.Int64","L":"5000000000","T@odata.type":"Edm.Double","T":3}`,
			`{"PartitionKey":"p","RowKey":"r","I":7,"D@odata.type":"Edm.Double","D":1.0,"E@odata.type":"Edm.Double","E":2e3,"L@odata.type":"Edm.Int64","L":"5000000000","T@odata.type":"Edm.Double","T":3}`},
		{"no properties", `{"PartitionKey":"p","RowKey":"r"}`, `{}`, `{"PartitionKey":"p","RowKey":"r"}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			var e rawMirror
			if err := p.Decode([]byte(c.in), reflect.ValueOf(&e).Elem()); err != nil {
				t.Fatal(err)
			}
			if e.PartitionKey != "p" || e.RowKey != "r" {
				t.Errorf("keys: got %q %q, want p r", e.PartitionKey, e.RowKey)
			}
			if got := string(e.Properties); got != c.props {
				t.Errorf("Properties:\n got %s\nwant %s", got, c.props)
			}
			out, err := p.Encode(nil, reflect.ValueOf(e), &storage)
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != c.out {
				t.Errorf("Encode:\n got %s\nwant %s", out, c.out)
			}
		})
	}
	var e rawMirror
	in := `{"odata.etag":"W/\"x\"","PartitionKey":"p","RowKey":"r","Timestamp":"2024-01-02T03:04:05.1234567Z"}`
	if err := p.Decode([]byte(in), reflect.ValueOf(&e).Elem()); err != nil {
		t.Fatal(err)
	}
	if want := time.Date(2024, 1, 2, 3, 4, 5, 123456700, time.UTC); e.ETag != `W/"x"` || !e.Timestamp.Equal(want) {
		t.Errorf("meta: got %q %v, want %q %v", e.ETag, e.Timestamp, `W/"x"`, want)
	}
}

// TestRawDecodeSystemMembers: the keys and ETag, kept as one string, and
// Timestamp come out as they were read, wherever they are in the object;
// the last of a repeated member counts; a key that is not a string is
// refused.
func TestRawDecodeSystemMembers(t *testing.T) {
	p := rawPlan(t)
	ts := time.Date(2024, 1, 2, 3, 4, 5, 123456700, time.UTC)
	for _, c := range []struct {
		name, in       string
		pk, rk, etag   string
		ts             time.Time
		props, problem string // problem: the DecodeError's property, "" for none
	}{
		{"service order", `{"odata.etag":"W/\"datetime'2024'\"","PartitionKey":"p","RowKey":"r","Timestamp":"2024-01-02T03:04:05.1234567Z","A":1}`,
			"p", "r", `W/"datetime'2024'"`, ts, `{"A":1}`, ""},
		{"reversed, escaped keys", `{"A":"x","Timestamp":"2024-01-02T03:04:05.1234567Z","RowKey":"r\u00e9","PartitionKey":"\"p\"","odata.etag":"e"}`,
			`"p"`, "ré", "e", ts, `{"A":"x"}`, ""},
		{"no ETag, no Timestamp", `{"PartitionKey":"p","RowKey":"r"}`, "p", "r", "", time.Time{}, `{}`, ""},
		{"empty keys", `{"PartitionKey":"","RowKey":""}`, "", "", "", time.Time{}, `{}`, ""},
		{"the last repeated member counts", `{"PartitionKey":"a","RowKey":"b","PartitionKey":"p","RowKey":"r"}`, "p", "r", "", time.Time{}, `{}`, ""},
		{"an ETag that is not a string is not one", `{"PartitionKey":"p","RowKey":"r","odata.etag":5}`, "p", "r", "", time.Time{}, `{}`, ""},
		{"a key that is not a string", `{"PartitionKey":1,"RowKey":"r"}`, "", "", "", time.Time{}, "", "PartitionKey"},
		{"a Timestamp that is not a time", `{"PartitionKey":"p","RowKey":"r","Timestamp":"soon"}`, "", "", "", time.Time{}, "", "Timestamp"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var e rawMirror
			err := p.Decode([]byte(c.in), reflect.ValueOf(&e).Elem())
			if c.problem != "" {
				var de *tablekit.DecodeError
				if !errors.As(err, &de) || de.Property != c.problem {
					t.Fatalf("got %v, want a *tablekit.DecodeError of %s", err, c.problem)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := []string{e.PartitionKey, e.RowKey, string(e.ETag), string(e.Properties)}
			if want := []string{c.pk, c.rk, c.etag, c.props}; !reflect.DeepEqual(got, want) {
				t.Errorf("keys, ETag, Properties: got %q, want %q", got, want)
			}
			if !e.Timestamp.Equal(c.ts) {
				t.Errorf("Timestamp %v, want %v", e.Timestamp, c.ts)
			}
		})
	}
}

func TestRawDecodeRefuses(t *testing.T) {
	p := rawPlan(t)
	for _, in := range []string{`{"A":{"B":1}}`, `{"A":[1]}`, `{"A":1`, `[]`, `{"A":1} x`} {
		var e rawMirror
		if err := p.Decode([]byte(in), reflect.ValueOf(&e).Elem()); err == nil {
			t.Errorf("%s: got no error, want a *tablekit.DecodeError", in)
		}
	}
}

// TestPlainName: the fast check takes plain ASCII names and never one
// that wire.CheckPropertyName refuses.
func TestPlainName(t *testing.T) {
	long := make([]byte, storage.MaxPropertyName+1)
	for i := range long {
		long[i] = 'a'
	}
	for _, c := range []struct {
		name  string
		plain bool
	}{
		{"A", true}, {"_", true}, {"a1", true}, {"Name_2", true}, {string(long[1:]), true},
		{"1a", false}, {"", false}, {"a-b", false}, {"a b", false}, {"PartitionKey", false},
		{"RowKey", false}, {"Timestamp", false}, {"café", false}, {"a$", false}, {string(long), false},
	} {
		if got := plainName([]byte(c.name), storage.MaxPropertyName); got != c.plain {
			t.Errorf("plainName(%.20q) = %v, want %v", c.name, got, c.plain)
		}
		if c.plain && wire.CheckPropertyName(c.name) != nil {
			t.Errorf("%.20q: plain, but CheckPropertyName refuses it", c.name)
		}
	}
}

// TestRawDecodeAtInPage: read where it lies in a page, a raw entity holds
// its own properties, not room for the rest of the page (which made a
// copy of 50,000 entities allocate gigabytes), and the length is its own.
func TestRawDecodeAtInPage(t *testing.T) {
	p := rawPlan(t)
	entity := `{"PartitionKey":"p","RowKey":"r","A":"x","N@odata.type":"Edm.Int64","N":"5"}`
	page := entity + "," + strings.Repeat(`{"PartitionKey":"p","RowKey":"s","A":"y"},`, 20000) + "{}]}"
	var e rawMirror
	n, err := p.DecodeAt([]byte(page), reflect.ValueOf(&e).Elem())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := n, len(entity); got != want {
		t.Errorf("length %d, want %d", got, want)
	}
	if got, want := string(e.Properties), `{"A":"x","N@odata.type":"Edm.Int64","N":"5"}`; got != want {
		t.Errorf("Properties %s, want %s", got, want)
	}
	if got, limit := cap(e.Properties), rawStartSize; got > limit {
		t.Errorf("Properties hold %d bytes of capacity for %d of JSON; want at most %d", got, len(e.Properties), limit)
	}
}

// TestRawAnnotationNeverRetypes: a RawEntity read from the service or
// built by the caller holds no value outside its annotated type: reading
// one is a *tablekit.DecodeError, writing one a *tablekit.ValidationError, each naming the
// property, the type and what is wrong.
func TestRawAnnotationNeverRetypes(t *testing.T) {
	p := rawPlan(t)
	for _, c := range badAnnotated {
		t.Run(c.name, func(t *testing.T) {
			props := "{" + member(c.name, c.prop, c.edm, c.value)
			var e rawMirror
			err := p.Decode([]byte(keysJSON+props[1:]), reflect.ValueOf(&e).Elem())
			checkDecodeError(t, "RawEntity read", err, c.prop, c.reason)

			e = rawMirror{PartitionKey: "p", RowKey: "r", Properties: []byte(props)}
			_, err = p.Encode(nil, reflect.ValueOf(e), &storage)
			var ve *tablekit.ValidationError
			if !errors.As(err, &ve) || !errors.Is(err, tablekit.ErrInvalid) {
				t.Fatalf("RawEntity write: err = %v, want a *tablekit.ValidationError", err)
			}
			if ve.Field != c.prop || ve.Rule != RuleEDMValue || !strings.Contains(ve.Detail, c.reason) {
				t.Errorf("RawEntity write: got %q %q %q, want %q %q and a detail containing %q", ve.Field, ve.Rule, ve.Detail, c.prop, RuleEDMValue, c.reason)
			}
		})
	}
}

// TestRawOrder: each property is written with its annotation just before
// it, whatever the order read (aztables' re-encoded maps put annotations
// after their values, digits-suffixed names between), and is annotated once.
func TestRawOrder(t *testing.T) {
	p := rawPlan(t)
	for _, c := range []struct{ name, props, want string }{
		{"sorted as aztables re-encodes",
			`{"D":"NaN","D2":2,"D@odata.type":"Edm.Double","I":"5","I@odata.type":"Edm.Int64","X":1.5,"X@odata.type":"Edm.Double"}`,
			`{"D@odata.type":"Edm.Double","D":"NaN","D2":2,"I@odata.type":"Edm.Int64","I":"5","X@odata.type":"Edm.Double","X":1.5}`},
		{"the service's order kept",
			`{"I@odata.type":"Edm.Int64","I":"5","S":"x"}`,
			`{"I@odata.type":"Edm.Int64","I":"5","S":"x"}`},
		{"null kept with its annotation",
			`{"N@odata.type":"Edm.Int64","N":null}`,
			`{"N@odata.type":"Edm.Int64","N":null}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			var e rawMirror
			if err := p.Decode([]byte(keysJSON+c.props[1:]), reflect.ValueOf(&e).Elem()); err != nil {
				t.Fatal(err)
			}
			if got := string(e.Properties); got != c.want {
				t.Errorf("read:\n got %s\nwant %s", got, c.want)
			}
			e.Properties = []byte(c.props)
			out, err := p.Encode(nil, reflect.ValueOf(e), &storage)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := string(out), keysJSON+c.want[1:]; got != want {
				t.Errorf("write:\n got %s\nwant %s", got, want)
			}
		})
	}
	// A lone annotation is no value: dropped when read, refused when
	// written, as are a property annotated twice and an annotation that
	// is not a string.
	var e rawMirror
	if err := p.Decode([]byte(keysJSON+`"A@odata.type":"Edm.Int64","B":"x"}`), reflect.ValueOf(&e).Elem()); err != nil || string(e.Properties) != `{"B":"x"}` {
		t.Errorf("lone annotation read: %s, %v; want {\"B\":\"x\"}", e.Properties, err)
	}
	for _, props := range []string{
		`{"A@odata.type":"Edm.Int64","B":"x"}`,
		`{"A@odata.type":"Edm.Int64","A":"1","A@odata.type":"Edm.Int64"}`,
		`{"A@odata.type":5,"A":5}`,
	} {
		e := rawMirror{PartitionKey: "p", RowKey: "r", Properties: []byte(props)}
		_, err := p.Encode(nil, reflect.ValueOf(e), &storage)
		var ve *tablekit.ValidationError
		if !errors.As(err, &ve) || ve.Rule != RuleMarshal {
			t.Errorf("write %s: err = %v, want a tablekit.ValidationError (%s)", props, err, RuleMarshal)
		}
	}
}

// FuzzRaw: reading any input never panics, and what reads and writes back
// reads again as the same properties.
func FuzzRaw(f *testing.F) {
	f.Add([]byte(`{"PartitionKey":"p","RowKey":"r","D":"NaN","D2":2,"D@odata.type":"Edm.Double","I@odata.type":"Edm.Int64","I":"5"}`))
	f.Add([]byte(`{"PartitionKey":"p","RowKey":"r","X":1.5,"Y":5000000000,"Z@odata.type":"Edm.Guid","Z":"0f8fad5b-d9cb-469f-a165-70867728950e"}`))
	f.Add([]byte(`{"PartitionKey":"p","RowKey":"r","caf\u00e9" : "x\"y","A@odata.type":"Edm.Int32","A":2147483648}`))
	p := rawPlan(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		var e rawMirror
		if err := p.Decode(data, reflect.ValueOf(&e).Elem()); err != nil {
			return
		}
		body, err := p.Encode(nil, reflect.ValueOf(e), &storage)
		if err != nil {
			return // a name the service would refuse, keys included
		}
		var back rawMirror
		if err := p.Decode(body, reflect.ValueOf(&back).Elem()); err != nil {
			t.Fatalf("%s reads, writes %s, which does not read: %v", data, body, err)
		}
		if string(back.Properties) != string(e.Properties) {
			t.Fatalf("%s reads as %s, written and read again as %s", data, e.Properties, back.Properties)
		}
	})
}

// FuzzRawFastMatches: every entity the one-pass raw read takes, it reads
// as the general one does (keys, ETag, Timestamp, properties byte for byte,
// and the length read), and it takes none the general one refuses. The
// seeds are the service's forms and the ones that leave it.
func FuzzRawFastMatches(f *testing.F) {
	for _, s := range []string{
		`{"odata.etag":"W/\"datetime'2024'\"","PartitionKey":"p","RowKey":"r","Timestamp":"2024-01-02T03:04:05.1234567Z","A":"x","N@odata.type":"Edm.Int64","N":"5","G@odata.type":"Edm.Guid","G":"e3779b97-f4a7-4150-91b5-4a32d192ed13","D@odata.type":"Edm.Double","D":1.5,"B":true,"Z":null}`,
		`{"PartitionKey":"p","RowKey":"r","I":7,"D":1.0,"E":2e3,"L":5000000000,"T@odata.type":"Edm.Double","T":3,"M":-2147483649}`,
		`{"PartitionKey":"p", "RowKey":"r" , "A":1 ,"B":"b",	"C@odata.type":"Edm.DateTime" , "C":"2024-01-02T03:04:05Z"}`,
		`{"PartitionKey":"p","RowKey":"r","A":"x","N":"5","N@odata.type":"Edm.Int64"}`,
		`{"PartitionKey":"p","RowKey":"r","N@odata.type":"Edm.Int64","A":"x","N":"5"}`,
		`{"PartitionKey":"p","RowKey":"r","N@odata.type":"Edm.Int64","PartitionKey":"q","N":"5"}`,
		`{"PartitionKey":"p","RowKey":"r","N@odata.type":"Edm.Int64","N":"x"}`,
		`{"PartitionKey":"p","RowKey":"r","N@odata.type":"Edm.Int64","N@odata.type":"Edm.Int64","N":"5"}`,
		`{"PartitionKey":"p","RowKey":"r","N@odata.type":"Edm.Int64","N":"5","N@odata.type":"Edm.Int64","N":"6"}`,
		`{"PartitionKey":"p","RowKey":"r","N@odata.type":5,"N":"5"}`,
		`{"PartitionKey":"p","RowKey":"r","A@odata.type":"Edm.String"}`,
		`{"PartitionKey":"p","RowKey":"r","PartitionKey@odata.type":"Edm.String","A":1}`,
		`{"PartitionKey":"p","RowKey":"r","caf\u00e9":"x","A":1}`,
		`{"PartitionKey":"p","RowKey":"r","A":{"B":1}}`,
		`{"PartitionKey":"p","RowKey":"r","A":[1]}`,
		`{"PartitionKey":"p","RowKey":"r","A":1e999}`,
		`{"PartitionKey":"p","RowKey":"r","A":1} x`,
		`{"PartitionKey":"p","RowKey":"r","A":1`,
		`{"PartitionKey":1,"RowKey":"r"}`,
		`{"PartitionKey":"p","RowKey":"r","Timestamp":"soon"}`,
		`{"PartitionKey":"p","RowKey":"r","odata.etag":5,"odata.type":"x","Timestamp@odata.type":"Edm.DateTime"}`,
		`{}`, `[]`, ``,
	} {
		f.Add([]byte(s))
	}
	p := rawPlan(f)
	// The service's forms (the first three seeds) take the one pass.
	for _, s := range []string{
		`{"odata.etag":"W/\"datetime'2024'\"","PartitionKey":"p","RowKey":"r","Timestamp":"2024-01-02T03:04:05.1234567Z","A":"x","N@odata.type":"Edm.Int64","N":"5","G@odata.type":"Edm.Guid","G":"e3779b97-f4a7-4150-91b5-4a32d192ed13","D@odata.type":"Edm.Double","D":1.5,"B":true,"Z":null}`,
		`{"PartitionKey":"p","RowKey":"r","I":7,"D":1.0,"E":2e3,"L":5000000000,"T@odata.type":"Edm.Double","T":3,"M":-2147483649}`,
		`{"PartitionKey":"p", "RowKey":"r" , "A":1 ,"B":"b",	"C@odata.type":"Edm.DateTime" , "C":"2024-01-02T03:04:05Z"}`,
	} {
		var e rawMirror
		if _, ok := p.decodeRawFast([]byte(s), reflect.ValueOf(&e).Elem(), true); !ok {
			f.Errorf("the one-pass read leaves %s to the general one", s)
		}
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, whole := range []bool{true, false} {
			var fast, general rawMirror
			n, ok := p.decodeRawFast(in, reflect.ValueOf(&fast).Elem(), whole)
			if !ok {
				continue
			}
			m, err := p.decodeRawGeneral(in, reflect.ValueOf(&general).Elem(), whole)
			if err != nil {
				t.Fatalf("whole %v: the one-pass read took %s, the general one refuses it: %v", whole, in, err)
			}
			if n != m || !reflect.DeepEqual(fast, general) {
				t.Fatalf("whole %v: %s\n one pass: %d %+v\n general:  %d %+v", whole, in, n, fast, m, general)
			}
			if cap(fast.Properties) != len(fast.Properties) {
				t.Errorf("whole %v: Properties of %d bytes hold %d of capacity, want their length", whole, len(fast.Properties), cap(fast.Properties))
			}
		}
	})
}
