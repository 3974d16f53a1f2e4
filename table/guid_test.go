package table_test

import (
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit/table"
)

func TestGUIDText(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"0f8fad5b-d9cb-469f-a165-70867728950e", "0f8fad5b-d9cb-469f-a165-70867728950e", true},
		{"{0F8FAD5B-D9CB-469F-A165-70867728950E}", "0f8fad5b-d9cb-469f-a165-70867728950e", true},
		{"0f8fad5bd9cb469fa16570867728950e", "", false},
		{"0123abcd-ABCD-ef01-2345-6789aBcDeF00", "0123abcd-abcd-ef01-2345-6789abcdef00", true},
		{"0f8fad5b-d9cb-469f-a165-70867728950-", "", false},
		{"0f8fad5b-d9cb-469f-a16-570867728950e", "", false}, // a dash out of place
		{"0f8fad5b-d9cb-469f-a165-70867728950e}", "", false},
		{"{0f8fad5b-d9cb-469f-a165-70867728950e", "", false},
		{"", "", false},
		{"0f8fad5b-d9cb-469f-a165-70867728950g", "", false},
		{"gf8fad5b-d9cb-469f-a165-70867728950e", "", false},
		{"0f8fad5b-d9cb-469f-a1G5-70867728950e", "", false},
		{"0f8fad5b-d9cb-+69f-a165-70867728950e", "", false},
		{"{0f8fad5b-d9cb-469f-a165-70867728950e ", "", false},
	}
	for _, tt := range tests {
		g, err := table.ParseGUID(tt.in)
		if (err == nil) != tt.ok {
			t.Errorf("ParseGUID(%q) error = %v, want ok %v", tt.in, err, tt.ok)
			continue
		}
		if !tt.ok {
			continue
		}
		if got := g.String(); got != tt.want {
			t.Errorf("ParseGUID(%q).String() = %q, want %q", tt.in, got, tt.want)
		}
		if got, err := g.AppendText([]byte("x:")); err != nil || string(got) != "x:"+tt.want {
			t.Errorf("AppendText = %q, %v; want %q", got, err, "x:"+tt.want)
		}
		var back table.GUID
		if err := back.UnmarshalText([]byte(tt.in)); err != nil || back != g {
			t.Errorf("UnmarshalText(%q) = %v, %v; want %v", tt.in, back, err, g)
		}
		b, _ := json.Marshal(g)
		if got := string(b); got != `"`+tt.want+`"` {
			t.Errorf("json.Marshal = %s, want %q", got, tt.want)
		}
	}
}

// A *GUID field is nullable and round-trips like a GUID.
func TestGUIDPointerRoundTrip(t *testing.T) {
	type E struct {
		PartitionKey, RowKey string
		Ref                  *table.GUID
	}
	c, err := aztables.NewClientWithNoCredential("http://127.0.0.1:1/guids", nil)
	if err != nil {
		t.Fatal(err)
	}
	tb, err := table.Wrap[E](c, "guids")
	if err != nil {
		t.Fatal(err)
	}
	g, _ := table.ParseGUID("0f8fad5b-d9cb-469f-a165-70867728950e")
	body, err := tb.Marshal(E{"p", "r", &g})
	if err != nil {
		t.Fatal(err)
	}
	if want := `"Ref@odata.type":"Edm.Guid","Ref":"0f8fad5b-d9cb-469f-a165-70867728950e"`; !strings.Contains(string(body), want) {
		t.Errorf("Marshal = %s, want it to contain %s", body, want)
	}
	got, err := tb.Unmarshal(body)
	if err != nil || got.Ref == nil || *got.Ref != g {
		t.Errorf("Unmarshal = %+v, %v; want Ref %v", got, err, g)
	}
}

// TestParseGUIDEveryByte sets each place of a GUID's text to every byte
// value and checks ParseGUID against encoding/hex reading the digits.
func TestParseGUIDEveryByte(t *testing.T) {
	const valid = "0f8fad5b-d9cb-469f-a165-70867728950e"
	for at := range len(valid) {
		for c := range 256 {
			in := []byte(valid)
			in[at] = byte(c)
			s := string(in)
			want, werr := hex.DecodeString(s[0:8] + s[9:13] + s[14:18] + s[19:23] + s[24:36])
			wantOK := werr == nil && s[8] == '-' && s[13] == '-' && s[18] == '-' && s[23] == '-'
			g, err := table.ParseGUID(s)
			if (err == nil) != wantOK {
				t.Fatalf("ParseGUID(%q): error %v, want ok %v", s, err, wantOK)
			}
			if wantOK && string(g[:]) != string(want) {
				t.Fatalf("ParseGUID(%q) = %x, want %x", s, g[:], want)
			}
		}
	}
}
