package wire

import "testing"

func TestAppendMember(t *testing.T) {
	for _, tc := range []struct{ name, anno, want string }{
		{"N", "", `,"N":`},
		{"N", "Edm.Int64", `,"N@odata.type":"Edm.Int64","N":`},
		{`a"b`, "Edm.Guid", `,"a\"b@odata.type":"Edm.Guid","a\"b":`},
	} {
		if got := string(AppendMember([]byte("{"), tc.name, tc.anno)); got != "{"+tc.want {
			t.Errorf("AppendMember(%q, %q) = %s, want {%s", tc.name, tc.anno, got, tc.want)
		}
	}
}
