package txwire

import (
	"strings"
	"testing"
)

var canonicalSeeds = []string{
	`{}`,
	`{"PartitionKey":"p","RowKey":"r"}`,
	`{"PartitionKey":"p","RowKey":"r","A":"<&>","B":0.1,"C":1e-7,"D":123456789012,"E":"\u2028\ud83d\ude00","F":[1,{"x":2}],"G":true,"H":false,"I":null}`,
	`{"S":"tab\there \b\f\n\r \u0001 \u007f \/ \\ \" é 日本 \ud800 \udc00 \ud800\u0041 \ud83d\ude00"}`,
	"{\"X\":\"invalid \xff utf8 \xe2\x82\"}",
	`{"N":-0,"M":1.0,"O":1E21,"P":1e20,"Q":0.000001,"R":0.0000001,"T":-1.5e-300,"U":123456789012345678901234567890}`,
	` { "a" : [ 1 , 2 ] , "b" : { } } `,
	`{"a":1,"a":2}`,
	`{"k\u0061":1,"ka":2}`,
	`{"a":{"b":1,"b":2}}`,
	`{"big":1e400}`,
	`[1]`, `null`, `"s"`, `{"a":1} x`, `{"a":01}`, `{"a":"\x"}`, `{"a":"` + "\x01" + `"}`, `{"a":1,}`, `{`,
}

// TestCanonicalLen: the length equals that of the real re-encoding.
func TestCanonicalLen(t *testing.T) {
	for _, s := range canonicalSeeds {
		checkCanonicalLen(t, []byte(s))
	}
	big := `{"S":"` + strings.Repeat("<a&b>", 10000) + `"}`
	checkCanonicalLen(t, []byte(big))
}

func checkCanonicalLen(t *testing.T, in []byte) {
	t.Helper()
	want, werr := Canonical(in)
	got, gerr := CanonicalLen(in)
	switch {
	case werr != nil && gerr == nil:
		t.Errorf("CanonicalLen(%q) = %d, but Canonical fails: %v", in, got, werr)
	case werr == nil && gerr != nil:
		if string(want) == "null" { // json.Unmarshal of null into a map
			return
		}
		t.Errorf("CanonicalLen(%q) fails (%v), Canonical gives %q", in, gerr, want)
	case werr == nil && got != len(want):
		t.Errorf("CanonicalLen(%q) = %d, want %d (%q)", in, got, len(want), want)
	}
}

func FuzzCanonicalLen(f *testing.F) {
	for _, s := range canonicalSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) { checkCanonicalLen(t, in) })
}
