package retry

import (
	"encoding/json"
	"strings"
	"testing"
)

var validCases = []string{
	``, ` `, `{}`, `[]`, `""`, `0`, `-0`, `01`, `-`, `1.`, `.5`, `1.5e`, `1e+`, `1E-7`, `-12.5e+30`,
	`true`, `tru`, `falsey`, `null`, `nul`, ` {"a" : [1, 2,{"b":null}] } `, `{"a":1,}`, `[1,]`,
	`{"a"}`, `{"a":}`, `{1:2}`, `["\u00e9\n\"\\\/\b\f\r\t"]`, `"\u12"`, `"\x"`, "\"a\x01\"",
	"\"\xff\xfe\"", `"abc`, `[1 2]`, `{"a":1 "b":2}`, "\t[\r\n]\n", `[`, `{`, `}`, `]`, `1 1`,
	`{"odata.metadata":"x","value":[{"PartitionKey":"p","N@odata.type":"Edm.Int64","N":"5"}]}`,
	`{"value":[{"a":1}`, "\u00a0{}", `[-]`, `[--1]`, `[1e5.5]`, `"\uD800"`,
}

// deepCases are at encoding/json's nesting limit and one past it.
var deepCases = []string{
	strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
	strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	strings.Repeat(`{"a":`, 10000) + "1" + strings.Repeat("}", 10000),
	strings.Repeat(`{"a":`, 10001) + "1" + strings.Repeat("}", 10001),
}

// TestValidJSON: validJSON agrees with json.Valid.
func TestValidJSON(t *testing.T) {
	for _, in := range append(validCases, deepCases...) {
		if got, want := validJSON([]byte(in)), json.Valid([]byte(in)); got != want {
			t.Errorf("validJSON(%.60q) = %v, want %v (json.Valid)", in, got, want)
		}
	}
}

func FuzzValidJSON(f *testing.F) {
	for _, in := range validCases {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if got, want := validJSON(in), json.Valid(in); got != want {
			t.Errorf("validJSON(%q) = %v, want %v (json.Valid)", in, got, want)
		}
	})
}
