package table_test

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/table"
)

func TestEntityEDMRoundTrip(t *testing.T) {
	props := edges()
	props["Local"] = time.Date(2024, 1, 2, 3, 4, 5, 600, time.FixedZone("X", 3600))
	in := table.Entity{PartitionKey: "O'Brien", RowKey: "r''", Properties: props}
	in.ETag = `W/"x"`
	in.Timestamp = time.Date(2024, 1, 1, 0, 0, 0, 100, time.UTC)
	edm, err := in.EDM()
	if err != nil {
		t.Fatal(err)
	}
	if edm.PartitionKey != in.PartitionKey || edm.RowKey != in.RowKey {
		t.Errorf("keys: got %q %q, want them unchanged", edm.PartitionKey, edm.RowKey)
	}
	if _, ok := edm.Properties["I64Max"].(aztables.EDMInt64); !ok {
		t.Errorf("int64: got %T, want aztables.EDMInt64", edm.Properties["I64Max"])
	}
	back, err := table.EntityFromEDM(edm)
	if err != nil {
		t.Fatal(err)
	}
	want := edges()
	want["Local"] = props["Local"].(time.Time).UTC()
	checkProps(t, back.Properties, want)
	if back.PartitionKey != in.PartitionKey || back.RowKey != in.RowKey || back.ETag != in.ETag || !back.Timestamp.Equal(in.Timestamp) {
		t.Errorf("keys and meta: got %+v, want those of %+v", back.Meta, in.Meta)
	}
}

func TestEntityEDMRefused(t *testing.T) {
	// aztables decodes a property annotated Edm.Double to nil.
	var decoded aztables.EDMEntity
	if err := json.Unmarshal([]byte(`{"PartitionKey":"p","RowKey":"r","D@odata.type":"Edm.Double","D":1.0}`), &decoded); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		in   aztables.EDMEntity
		prop string
	}{
		{"annotated double", decoded, "D"},
		{"plain int64", aztables.EDMEntity{Properties: map[string]any{"N": int64(1)}}, "N"},
		{"int", aztables.EDMEntity{Properties: map[string]any{"N": 1}}, "N"},
		{"bad guid", aztables.EDMEntity{Properties: map[string]any{"G": aztables.EDMGUID("nope")}}, "G"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := table.EntityFromEDM(c.in)
			var ve *tablekit.ValidationError
			if !errors.As(err, &ve) || ve.Field != c.prop {
				t.Errorf("got %v, want a tablekit.ValidationError for %s", err, c.prop)
			}
		})
	}
	_, err := table.Entity{Properties: map[string]any{"U": uint8(1)}}.EDM()
	var ve *tablekit.ValidationError
	if !errors.As(err, &ve) || ve.Field != "U" {
		t.Errorf("EDM of uint8: got %v, want a tablekit.ValidationError for U", err)
	}
}
