package codec

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// serviceEntity is an entity in the service's form whose properties hold
// a text of n bytes.
func serviceEntity(rk string, n int) string {
	return `{"odata.etag":"W/\"datetime'2024-01-02T03%3A04%3A05.1234567Z'\"","PartitionKey":"p","RowKey":"` + rk + `","Timestamp":"2024-01-02T03:04:05.1234567Z",` +
		`"N@odata.type":"Edm.Int64","N":"5","S":"` + strings.Repeat("x", n) + `"}`
}

func decodeRawProps(t *testing.T, p *Plan, in string) rawMirror {
	t.Helper()
	var e rawMirror
	if _, ok := p.decodeRawFast([]byte(in), reflect.ValueOf(&e).Elem(), true); !ok {
		t.Fatalf("the one-pass read leaves %s to the general one", in)
	}
	return e
}

// TestRawPropsReuse: properties given back are read into again, each read
// holding exactly its own entity's JSON; until a first one is given back,
// and beyond propsMax, every read gets a buffer of its own of exactly its
// length.
func TestRawPropsReuse(t *testing.T) {
	GivingBack(t)
	p := rawPlan(t)
	first := decodeRawProps(t, p, serviceEntity("a", 100))
	if got, want := cap(first.Properties), len(first.Properties); got != want {
		t.Errorf("before any buffer is given back: capacity %d, want the length %d", got, want)
	}
	ReleaseRawProps(first.Properties)
	ReleaseRawProps(nil)
	ReleaseRawProps(make([]byte, 3, 10)) // not a pooled size: ignored

	reused := 0
	prev := decodeRawProps(t, p, serviceEntity("b", 100))
	for i := range 50 {
		// Sizes within one class: 100 to 149 bytes of text.
		rk, n := fmt.Sprint(i), 100+i%50
		old := &prev.Properties[:1][0]
		ReleaseRawProps(prev.Properties)
		e := decodeRawProps(t, p, serviceEntity(rk, n))
		if got, want := string(e.Properties), `{"N@odata.type":"Edm.Int64","N":"5","S":"`+strings.Repeat("x", n)+`"}`; got != want {
			t.Fatalf("read %d: Properties %s, want %s", i, got, want)
		}
		if got := cap(e.Properties); got%propsStep != 0 {
			t.Fatalf("read %d: capacity %d, want a multiple of %d once buffers are given back", i, got, propsStep)
		}
		if &e.Properties[0] == old {
			reused++
		}
		prev = e
	}
	// The race detector's pool drops some of what it is given.
	if reused == 0 {
		t.Errorf("no read of 50 took the buffer given back before it")
	}

	big := decodeRawProps(t, p, serviceEntity("c", propsMax))
	if got, want := cap(big.Properties), len(big.Properties); got != want {
		t.Errorf("properties over %d bytes: capacity %d, want the length %d", propsMax, got, want)
	}
	ReleaseRawProps(big.Properties) // too large: ignored
}
