package table

import "testing"

func TestCarries(t *testing.T) {
	tests := []struct {
		name, got, want string
		same            bool
	}{
		{"equal", `{"A":1,"B":"x"}`, `{"A":1,"B":"x"}`, true},
		{"merge left others", `{"A":1,"B":"x","C":true}`, `{"A":1}`, true},
		{"value differs", `{"A":2,"B":"x"}`, `{"A":1}`, false},
		{"property missing", `{"B":"x"}`, `{"A":1}`, false},
		{"annotation differs", `{"A":"1","A@odata.type":"Edm.Int64"}`, `{"A":"1","A@odata.type":"Edm.String"}`, false},
	}
	for _, tc := range tests {
		got, err := carries([]byte(tc.got), []byte(tc.want))
		if err != nil || got != tc.same {
			t.Errorf("%s: carries(%s, %s) = %v, %v; want %v", tc.name, tc.got, tc.want, got, err, tc.same)
		}
	}
	if _, err := carries([]byte("{"), []byte("{}")); err == nil {
		t.Error("carries of broken JSON: got nil error, want one")
	}
}
