package codec

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tablekit/tablekit/internal/wire"
)

func TestPageEntities(t *testing.T) {
	tests := []struct {
		page    string
		want    []string
		wantErr bool
	}{
		{`{"value":[]}`, nil, false},
		{`{"odata.metadata":"x","value":[{"a":1}, {"b":"}"}]}`, []string{`{"a":1}`, `{"b":"}"}`}, false},
		{`{"value":[1]}`, nil, true},
		{`{"value":{}}`, nil, true},
		{`{"value":[{"a":1}`, []string{`{"a":1}`}, true},
		{`{}`, nil, false},
	}
	for _, tc := range tests {
		var got []string
		err := PageEntities([]byte(tc.page), func(e []byte) error { got = append(got, string(e)); return nil })
		if (err != nil) != tc.wantErr || strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("PageEntities(%s) = %q, %v; want %q, error %v", tc.page, got, err, tc.want, tc.wantErr)
		}
	}
}

// TestPageEntitiesAt: decoding each entity where it lies yields the
// entities and the errors of PageEntities, for malformed pages and the
// nesting limit too (counted from the page, not from the entity). After an
// error what each collected is discarded.
func TestPageEntitiesAt(t *testing.T) {
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	pages := []string{
		`{"value":[]}`,
		`{"odata.metadata":"x","value":[{"a":1}, {"b":"}"} ,{"c":[1,{"d":2}]}]}`,
		`{"value":[1]}`,
		`{"value":{}}`,
		`{"value":[{"a":1}`,
		`{"value":[{"a":1},{"b":tru}]}`,
		"{\"value\":[{\"a\":1},{\"b\":\"\x01\"}]}",
		`{"value":[{"a":1}]} x`,
		`{"value":[{"a":` + deep(9997) + `}]}`, `{"value":[{"a":` + deep(9996) + `}]}`,
		`{"value":[{"a":` + deep(9998) + `}]}`,
		`{}`,
	}
	for _, page := range pages {
		var want, got []string
		wantErr := PageEntities([]byte(page), func(e []byte) error { want = append(want, string(e)); return nil })
		gotErr := PageEntitiesAt([]byte(page), func(rest []byte) (int, error) {
			s := wire.Scanner{Data: rest}
			err := s.Skip()
			if err == nil {
				got = append(got, string(rest[:s.Pos]))
			}
			return s.Pos, err
		})
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || wantErr == nil && strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("PageEntitiesAt(%.80s) = %.80q, %v; want %.80q, %v", page, got, gotErr, want, wantErr)
		}
	}
}
