package codec

import (
	"encoding/hex"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/tablekit/tablekit"
)

// ownGUID stands for table.GUID: a [16]byte with text methods.
type ownGUID [16]byte

func (g ownGUID) MarshalText() ([]byte, error) { return []byte(hex.EncodeToString(g[:])), nil }
func (g *ownGUID) UnmarshalText(b []byte) error {
	_, err := hex.Decode(g[:], b)
	return err
}

// TestTypesAreGiven: the codec maps a type as a GUID only when Types says
// so, never by its name or package; otherwise a 16-byte text type is
// refused, as its text would not be stored as Edm.Guid.
func TestTypesAreGiven(t *testing.T) {
	type row struct {
		PartitionKey, RowKey string
		ID                   ownGUID
	}
	e := row{PartitionKey: "p", RowKey: "r", ID: ownGUID{0: 0xab}}
	for _, tc := range []struct {
		name  string
		types Types
		want  string
	}{
		{"given", Types{GUID: reflect.TypeFor[ownGUID]()}, `"ID@odata.type":"Edm.Guid","ID":"ab000000-0000-0000-0000-000000000000"`},
		{"not given", Types{}, ""},
	} {
		p, err := For(reflect.TypeFor[row](), tc.types)
		if tc.want == "" {
			if !errors.Is(err, tablekit.ErrInvalid) {
				t.Errorf("%s: got %v, want an error matching tablekit.ErrInvalid", tc.name, err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		got, err := p.Marshal(reflect.ValueOf(&e).Elem(), &storage)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(got), tc.want) {
			t.Errorf("%s: got %s, want it to hold %s", tc.name, got, tc.want)
		}
	}
}
