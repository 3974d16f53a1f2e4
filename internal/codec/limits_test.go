package codec

import (
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/internal/backend"
)

// The profiles of the tests: most check Table Storage's limits.
var (
	storage  = backend.Of(backend.TableStorage)
	cosmosDB = backend.Of(backend.CosmosDB)
)

// cosmosEntity has a property Cosmos DB reserves (ID) beside others.
type cosmosEntity struct {
	PartitionKey, RowKey string
	ID                   *string `table:",omitempty"`
}

// sizedEntity is a table.Entity whose JSON has exactly jsonBytes bytes:
// strings of at most MaxString ASCII characters, the last one cut to fit.
// Each adds ,"name":"value" to the keys' JSON.
func sizedEntity(t *testing.T, p *Plan, jsonBytes int) entityMirror {
	t.Helper()
	e := entityMirror{PartitionKey: "p", RowKey: "r", Properties: map[string]any{}}
	body, err := p.Encode(nil, reflect.ValueOf(e), &cosmosDB)
	if err != nil {
		t.Fatal(err)
	}
	size := len(body)
	full := strings.Repeat("s", storage.MaxString.Max)
	for i := 0; ; i++ {
		name := "S" + strconv.Itoa(1000+i)
		rest := jsonBytes - size - len(`,"`+name+`":""`)
		if rest < 0 {
			t.Fatalf("cannot make an entity of %d bytes", jsonBytes)
		}
		if rest <= len(full) {
			e.Properties[name] = full[:rest]
			return e
		}
		e.Properties[name] = full
		size += len(`,"`+name+`":""`) + len(full)
	}
}

// TestBackendLimits: each backend's profile decides the limits an entity
// is checked against; the same entity can pass one and fail the other.
func TestBackendLimits(t *testing.T) {
	p := plan(t, cosmosEntity{})
	id := "x"
	tests := []struct {
		name       string
		e          cosmosEntity
		prof       *backend.Profile
		wantRule   string // "" when valid
		wantDetail string
	}{
		{"RowKey of 255 bytes on Cosmos DB", cosmosEntity{PartitionKey: "p", RowKey: strings.Repeat("r", 255)}, &cosmosDB, "", ""},
		{"RowKey of 256 bytes on Cosmos DB", cosmosEntity{PartitionKey: "p", RowKey: strings.Repeat("r", 256)}, &cosmosDB, RuleKeyTooLong, "256 bytes of UTF-8, at most 255"},
		{"RowKey of 256 bytes on Table Storage", cosmosEntity{PartitionKey: "p", RowKey: strings.Repeat("r", 256)}, &storage, "", ""},
		{"RowKey of 128 two-byte runes on Cosmos DB", cosmosEntity{PartitionKey: "p", RowKey: strings.Repeat("é", 128)}, &cosmosDB, RuleKeyTooLong, "256 bytes of UTF-8"},
		{"PartitionKey of 1 KiB on Cosmos DB", cosmosEntity{PartitionKey: strings.Repeat("k", 1024), RowKey: "r"}, &cosmosDB, "", ""},
		{"PartitionKey over 1 KiB in UTF-8 on Cosmos DB", cosmosEntity{PartitionKey: strings.Repeat("é", 513), RowKey: "r"}, &cosmosDB, RuleKeyTooLong, "1026 bytes of UTF-8, at most 1024"},
		{"PartitionKey of 1 KiB in UTF-16 on Table Storage", cosmosEntity{PartitionKey: strings.Repeat("é", 1024), RowKey: "r"}, &storage, "", ""},
		{"PartitionKey over 1 KiB in UTF-16 on Table Storage", cosmosEntity{PartitionKey: strings.Repeat("é", 1025), RowKey: "r"}, &storage, RuleKeyTooLong, "1025 UTF-16 code units, at most 1024"},
		{"reserved ID on Cosmos DB", cosmosEntity{PartitionKey: "p", RowKey: "r", ID: &id}, &cosmosDB, RulePropertyName, "reserved by Azure Cosmos DB for Table"},
		{"ID on Table Storage", cosmosEntity{PartitionKey: "p", RowKey: "r", ID: &id}, &storage, "", ""},
		{"ID left out on Cosmos DB", cosmosEntity{PartitionKey: "p", RowKey: "r"}, &cosmosDB, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := p.Encode(nil, reflect.ValueOf(tt.e), tt.prof)
			checkRule(t, err, tt.wantRule, tt.wantDetail)
		})
	}
}

// TestEntitySizeByBackend: Cosmos DB measures an entity's JSON against 2
// MiB - 1 bytes, Table Storage by its formula against 1 MiB.
func TestEntitySizeByBackend(t *testing.T) {
	p := dynPlan(t)
	tests := []struct {
		name       string
		size       int
		prof       *backend.Profile
		wantRule   string
		wantDetail string
	}{
		{"1.5 MB on Cosmos DB", 1_500_000, &cosmosDB, "", ""},
		{"1.5 MB on Table Storage", 1_500_000, &storage, RuleEntityTooLarge, "bytes by the service's formula, at most 1048576"},
		{"2 MiB - 1 on Cosmos DB", 2<<20 - 1, &cosmosDB, "", ""},
		{"2 MiB on Cosmos DB", 2 << 20, &cosmosDB, RuleEntityTooLarge, "2097152 bytes of JSON, at most 2097151"},
		{"2.2 MB on Cosmos DB", 2_200_000, &cosmosDB, RuleEntityTooLarge, "2200000 bytes of JSON, at most 2097151"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body, err := p.Encode(nil, reflect.ValueOf(sizedEntity(t, p, tt.size)), tt.prof)
			if err == nil && len(body) != tt.size {
				t.Fatalf("the test entity has %d bytes of JSON, want %d", len(body), tt.size)
			}
			checkRule(t, err, tt.wantRule, tt.wantDetail)
		})
	}
}

// checkRule fails unless err breaks rule, with a Detail containing detail;
// rule "" wants no error.
func checkRule(t *testing.T, err error, rule, detail string) {
	t.Helper()
	if rule == "" {
		if err != nil {
			t.Fatalf("got %v, want no error", err)
		}
		return
	}
	var ve *tablekit.ValidationError
	if !errors.As(err, &ve) || ve.Rule != rule {
		t.Fatalf("got %v, want rule %q", err, rule)
	}
	if !strings.Contains(ve.Detail, detail) {
		t.Errorf("detail %q, want it to contain %q", ve.Detail, detail)
	}
}

// TestReservedNamesEveryPlan: a table.Entity and a table.RawEntity refuse
// Cosmos DB's reserved names on Cosmos DB only, as a struct does.
func TestReservedNamesEveryPlan(t *testing.T) {
	dyn := dynPlan(t)
	raw := rawPlan(t)
	for _, name := range cosmosDB.ReservedProperties() {
		d := entityMirror{PartitionKey: "p", RowKey: "r", Properties: map[string]any{name: "v", "Other": int32(1)}}
		r := rawMirror{PartitionKey: "p", RowKey: "r", Properties: []byte(`{"Other":1,"` + name + `":"v"}`)}
		for _, c := range []struct {
			what string
			p    *Plan
			v    any
		}{{"Entity", dyn, d}, {"RawEntity", raw, r}} {
			_, err := c.p.Encode(nil, reflect.ValueOf(c.v), &cosmosDB)
			var ve *tablekit.ValidationError
			if !errors.As(err, &ve) || ve.Field != name || ve.Rule != RulePropertyName {
				t.Errorf("%s with %s on Cosmos DB: got %v, want %s refused", c.what, name, err, name)
			}
			if _, err := c.p.Encode(nil, reflect.ValueOf(c.v), &storage); err != nil {
				t.Errorf("%s with %s on Table Storage: %v", c.what, name, err)
			}
		}
	}
	// The comparison is exact, as the FAQ spells the names.
	d := entityMirror{PartitionKey: "p", RowKey: "r", Properties: map[string]any{"Id": "v", "RID": "w"}}
	if _, err := dyn.Encode(nil, reflect.ValueOf(d), &cosmosDB); err != nil {
		t.Errorf("Id and RID on Cosmos DB: %v", err)
	}
}

// TestRawEntitySizeOnCosmos: Cosmos DB measures the JSON, which a
// RawEntity has, so its size is checked there before sending.
func TestRawEntitySizeOnCosmos(t *testing.T) {
	raw := rawPlan(t)
	big := `{"S":"` + strings.Repeat("a", 2<<20) + `"}`
	r := rawMirror{PartitionKey: "p", RowKey: "r", Properties: []byte(big)}
	_, err := raw.Encode(nil, reflect.ValueOf(r), &cosmosDB)
	var ve *tablekit.ValidationError
	if !errors.As(err, &ve) || ve.Rule != RuleEntityTooLarge {
		t.Errorf("a RawEntity of 2 MiB of JSON on Cosmos DB: got %v, want %s", err, RuleEntityTooLarge)
	}
}

// TestPropertyNameLengthInCharacters: the name limit counts characters, not
// bytes, so a long name of two-byte letters that the service stores is
// written, and one character more is refused.
func TestPropertyNameLengthInCharacters(t *testing.T) {
	dyn := dynPlan(t)
	for _, c := range []struct {
		name string
		n    int
		ok   bool
	}{
		{"two-byte letters at the limit", storage.MaxPropertyName, true},
		{"two-byte letters over the limit", storage.MaxPropertyName + 1, false},
	} {
		name := strings.Repeat("é", c.n)
		d := entityMirror{PartitionKey: "p", RowKey: "r", Properties: map[string]any{name: "v"}}
		_, err := dyn.Encode(nil, reflect.ValueOf(d), &storage)
		var ve *tablekit.ValidationError
		switch {
		case c.ok && err != nil:
			t.Errorf("%s: got %v, want it written", c.name, err)
		case !c.ok && (!errors.As(err, &ve) || ve.Rule != RulePropertyName || !strings.Contains(ve.Detail, "characters")):
			t.Errorf("%s: got %v, want a name refused in characters", c.name, err)
		}
	}
}

// TestAppendKeysPlain: keys written by the one-pass path for plain keys
// come out as the path that checks each rule apart writes and measures
// them, and keys that path refuses are refused alike.
func TestAppendKeysPlain(t *testing.T) {
	long := strings.Repeat("k", 1024)
	keys := []string{"p", "p00", "row-000123", "a.b_c~d", "O'Brien", "a b", "", "a/b", "a#b", "a?b", "a\\b", `a"b`, "a\x7fb", "a\x1fb", "ü", "\xff", long, long + "k"}
	for p, prof := range []*backend.Profile{&storage, &cosmosDB} {
		for _, pk := range keys {
			for _, rk := range keys {
				got, gotN, gotErr := appendKeys([]byte("x"), prof, pk, rk)
				want, wantN, wantErr := appendKeysChecked([]byte("x"), prof, pk, rk)
				if string(got) != string(want) || gotN != wantN || (gotErr == nil) != (wantErr == nil) {
					t.Fatalf("profile %d, keys %q, %q: got %q, %d, %v; want %q, %d, %v", p, pk, rk, got, gotN, gotErr, want, wantN, wantErr)
				}
				if gotErr != nil && gotErr.Error() != wantErr.Error() {
					t.Fatalf("profile %d, keys %q, %q: got error %v, want %v", p, pk, rk, gotErr, wantErr)
				}
			}
		}
	}
}
