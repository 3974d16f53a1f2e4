package codec

import (
	"reflect"
	"strings"
	"testing"

	"github.com/tablekit/tablekit/internal/wire"
)

type atItem struct {
	PartitionKey, RowKey string
	Name                 string
	N                    int64
}

// TestDecodeAt: an entity decoded where it lies, followed by more of a
// page, gives what Decode gives for the entity alone, and its length.
func TestDecodeAt(t *testing.T) {
	tests := []struct {
		entity, rest string
	}{
		{`{"PartitionKey":"p","RowKey":"r","Name":"plain","N@odata.type":"Edm.Int64","N":"7"}`, `,{"PartitionKey":"q"}]}`},
		{` {"PartitionKey":"p\u00e9","RowKey":"r\"1","Name":"tab\there","N":"-1","N@odata.type":"Edm.Int64"}`, `]}`},
		{"{\"PartitionKey\":\"p\",\"RowKey\":\"r\",\"Name\":\"\xff bad utf-8\",\"Other\":[1,{\"x\":2}],\"N\":null}", ` ]`},
		{`{"PartitionKey":"","RowKey":"r","Name":""}`, `,`},
	}
	for _, tc := range tests {
		var want, got atItem
		if err := decodeAlone(t, tc.entity, &want); err != nil {
			t.Fatalf("Decode(%s): %v", tc.entity, err)
		}
		p, err := planFor[atItem]()
		if err != nil {
			t.Fatal(err)
		}
		n, err := p.DecodeAt([]byte(tc.entity+tc.rest), reflect.ValueOf(&got).Elem())
		if err != nil || n != len(tc.entity) || !reflect.DeepEqual(got, want) {
			t.Errorf("DecodeAt(%s) = %+v, %d, %v; want %+v, %d", tc.entity+tc.rest, got, n, err, want, len(tc.entity))
		}
	}
	// Decode wants the entity alone; DecodeAt stops at its end.
	p, _ := planFor[atItem]()
	var e atItem
	if err := p.Decode([]byte(`{"PartitionKey":"p"} x`), reflect.ValueOf(&e).Elem()); err == nil {
		t.Error("Decode accepted data after the entity")
	}
	if _, err := p.DecodeAt([]byte(`{"PartitionKey":"p",}`), reflect.ValueOf(&e).Elem()); err == nil {
		t.Error("DecodeAt accepted a malformed entity")
	}
}

// decodeAlone decodes entity into v with T's plan.
func decodeAlone[T any](t *testing.T, entity string, v *T) error {
	t.Helper()
	p, err := planFor[T]()
	if err != nil {
		return err
	}
	return p.Decode([]byte(entity), reflect.ValueOf(v).Elem())
}

// planFor is the plan of T, a type with none of table's special types.
func planFor[T any]() (*Plan, error) { return For(reflect.TypeFor[T](), Types{}) }

// TestKeepShared: the strings an entity's fields keep share its one copy
// only when they are at least half of it; a small field of a large entity
// is cloned, so that it does not hold the rest alive.
func TestKeepShared(t *testing.T) {
	big := strings.Repeat("x", 1000)
	tests := []struct {
		name, entity string
		want         bool
	}{
		{"kept strings are most of it", `{"PartitionKey":"p","RowKey":"r","Name":"` + big + `"}`, true},
		{"an unknown property is most of it", `{"PartitionKey":"p","RowKey":"r","Name":"n","Other":"` + big + `"}`, false},
		{"a number is not kept as text", `{"PartitionKey":"p","RowKey":"r","N@odata.type":"Edm.Int64","N":"` + strings.Repeat("1", 1000) + `"}`, false},
		{"names and punctuation outweigh short keys", `{"PartitionKey":"pppppppp","RowKey":"rrrrrrrr"}`, false},
		{"long keys", `{"PartitionKey":"` + big + `","RowKey":"r"}`, true},
	}
	p, err := planFor[atItem]()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range tests {
		s := wire.Scanner{Data: []byte(tc.entity)}
		toks, n, err := parseObject(&s, nil, true)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		p.keepShared(&parsing{}, toks, n)
		for _, tok := range toks {
			if got := tok.shared; got != tc.want {
				t.Errorf("%s: %s shared = %v, want %v", tc.name, tok.name, got, tc.want)
			}
		}
	}
}

// TestDecodeMemberOrder: entities whose members come in another order than
// the last entity's, or with other members where it had fields, decode
// alike through one pooled parsing state (fieldOf's memory of the last
// order).
func TestDecodeMemberOrder(t *testing.T) {
	p, err := planFor[atItem]()
	if err != nil {
		t.Fatal(err)
	}
	entities := []struct {
		json string
		want atItem
	}{
		{`{"PartitionKey":"p","RowKey":"1","Name":"a","N@odata.type":"Edm.Int64","N":"1"}`, atItem{"p", "1", "a", 1}},
		{`{"PartitionKey":"p","RowKey":"2","N@odata.type":"Edm.Int64","N":"2","Name":"b"}`, atItem{"p", "2", "b", 2}},
		{`{"PartitionKey":"p","RowKey":"3","Other":"x","Name":"c"}`, atItem{"p", "3", "c", 0}},
		{`{"Name":"d","PartitionKey":"p","RowKey":"4","Nam":"no","N@odata.type":"Edm.Int64","N":"4"}`, atItem{"p", "4", "d", 4}},
		{`{"PartitionKey":"p","RowKey":"5","Name":"e","N@odata.type":"Edm.Int64","N":"5"}`, atItem{"p", "5", "e", 5}},
	}
	for range 2 { // the second time, every order was seen before
		for _, e := range entities {
			var got atItem
			if err := p.Decode([]byte(e.json), reflect.ValueOf(&got).Elem()); err != nil {
				t.Fatalf("%s: %v", e.json, err)
			}
			if got != e.want {
				t.Errorf("%s: got %+v, want %+v", e.json, got, e.want)
			}
		}
	}
	ps := &parsing{}
	for i, name := range []string{"Name", "N", "Other"} {
		want := map[string]int{"Name": p.byName["Name"], "N": p.byName["N"], "Other": -1}[name]
		for range 2 {
			if got := p.fieldOf(ps, i+3, name); got != want {
				t.Errorf("fieldOf(%d, %q): got %d, want %d", i+3, name, got, want)
			}
		}
	}
	if got := p.fieldOf(ps, 3, "N"); got != p.byName["N"] {
		t.Errorf("fieldOf after a change of order: got %d, want %d", got, p.byName["N"])
	}
}
