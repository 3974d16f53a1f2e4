package table_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/table"
)

// azEntity is a struct as the aztables README teaches it.
type azEntity struct {
	aztables.Entity
	ETag string
	N    aztables.EDMInt64
	When aztables.EDMDateTime
	ID   aztables.EDMGUID
	Blob aztables.EDMBinary
	Name string
}

// TestAztablesTypes checks, on Azurite, that aztables' own entity types
// keep their EDM types through tablekit: annotated on the wire, matched by
// typed filters, and read back with the Timestamp and ETag filled in.
func TestAztablesTypes(t *testing.T) {
	tbl, _ := newRecordedTable[azEntity](t, nil)
	ctx := testenv.Ctx(t)
	when := time.Date(2021, 2, 3, 4, 5, 6, 700, time.UTC)
	in := azEntity{Entity: aztables.Entity{PartitionKey: "p", RowKey: "r", Timestamp: aztables.EDMDateTime(time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC))},
		N: 5, When: aztables.EDMDateTime(when), ID: "0f8fad5b-d9cb-469f-a165-70867728950e", Blob: aztables.EDMBinary{0, 1}, Name: "x"}
	body, err := tbl.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if _, sent := decodeMap(t, body)["Timestamp"]; sent {
		t.Errorf("Marshal sent the read-only Timestamp: %s", body)
	}
	if _, err := tbl.Add(ctx, in); err != nil {
		t.Fatal(err)
	}
	raw, err := tbl.Client().GetEntity(ctx, "p", "r", nil)
	if err != nil {
		t.Fatal(err)
	}
	stored := decodeMap(t, raw.Value)
	for prop, want := range map[string]string{"N": "Edm.Int64", "When": "Edm.DateTime", "ID": "Edm.Guid", "Blob": "Edm.Binary"} {
		if got := stored[prop+"@odata.type"]; got != want {
			t.Errorf("%s stored as %v, want %s", prop, got, want)
		}
	}
	filter := "N eq 5L"
	page, err := tbl.Client().NewListEntitiesPager(&aztables.ListEntitiesOptions{Filter: &filter}).NextPage(ctx)
	if err != nil || len(page.Entities) != 1 {
		t.Errorf("filter %q: %d entities, %v; want 1", filter, len(page.Entities), err)
	}
	got, err := tbl.Get(ctx, "p", "r", nil)
	if err != nil {
		t.Fatal(err)
	}
	if time.Time(got.Timestamp).IsZero() || got.ETag == "" {
		t.Errorf("Timestamp %v, ETag %q: want both read", time.Time(got.Timestamp), got.ETag)
	}
	got.Timestamp, got.ETag = in.Timestamp, ""
	if !reflect.DeepEqual(got, in) {
		t.Errorf("Get = %+v\nwant %+v", got, in)
	}
}

func decodeMap(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// uuidLike is a 16-byte TextMarshaler such as the common UUID packages have.
type uuidLike [16]byte

func (u uuidLike) MarshalText() ([]byte, error) { return []byte("x"), nil }
func (u *uuidLike) UnmarshalText([]byte) error  { return nil }

// TestTextTypesThatRetype checks that New refuses a TextMarshaler whose text
// would store, as Edm.String, data that other clients store as Edm.Guid.
func TestTextTypesThatRetype(t *testing.T) {
	type withUUID struct {
		PartitionKey, RowKey string
		ID                   uuidLike
	}
	svc, err := table.NewServiceWithSharedKey("http://127.0.0.1:1/devstoreaccount1", "devstoreaccount1", "a2V5", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = table.New[withUUID](svc, "anytable")
	var te *tablekit.ValidationError
	if !errors.As(err, &te) || te.Field != "ID" {
		t.Errorf("New = %v, want a tablekit.ValidationError for field ID", err)
	}
}
