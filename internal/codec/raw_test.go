package codec

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"

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

func rawPlan(t *testing.T) *Plan {
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
			out, err := p.Encode(nil, reflect.ValueOf(e))
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

func TestRawDecodeRefuses(t *testing.T) {
	p := rawPlan(t)
	for _, in := range []string{`{"A":{"B":1}}`, `{"A":[1]}`, `{"A":1`, `[]`, `{"A":1} x`} {
		var e rawMirror
		if err := p.Decode([]byte(in), reflect.ValueOf(&e).Elem()); err == nil {
			t.Errorf("%s: got no error, want a *DecodeError", in)
		}
	}
}

// TestPlainName: the fast check takes plain ASCII names and never one
// that wire.CheckPropertyName refuses.
func TestPlainName(t *testing.T) {
	long := make([]byte, wire.MaxPropertyNameLen+1)
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
		if got := plainName([]byte(c.name)); got != c.plain {
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
