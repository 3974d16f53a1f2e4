package table_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/table"
)

// foreign holds the text forms other clients store as Edm.String.
const foreignJSON = `{"PartitionKey":"p","RowKey":"r","When":"2020-01-01T00:00:00Z","ID":"0f8fad5b-d9cb-469f-a165-70867728950e","Blob":"AAE="}`

type strictFields struct {
	PartitionKey, RowKey string
	When                 time.Time
	ID                   table.GUID
	Blob                 []byte
}

type parseFields struct {
	PartitionKey, RowKey string
	When                 time.Time  `table:",parse"`
	ID                   table.GUID `table:",parse"`
	Blob                 []byte     `table:",parse"`
}

// TestStoredStringIsNotRetyped writes strings as another client does and
// checks that they are refused as times, GUIDs and bytes unless the field
// asks for parsing, on Azurite.
func TestStoredStringIsNotRetyped(t *testing.T) {
	strict, _ := newRecordedTable[strictFields](t, nil)
	ctx := testenv.Ctx(t)
	if _, err := strict.Client().AddEntity(ctx, []byte(foreignJSON), nil); err != nil {
		t.Fatal(err)
	}
	for _, prop := range []string{"When", "ID", "Blob"} {
		t.Run(prop, func(t *testing.T) {
			_, err := strict.Get(ctx, "p", "r", &table.GetOptions{Select: []string{prop}})
			var de *tablekit.DecodeError
			if !errors.As(err, &de) || de.Property != prop || !strings.Contains(de.Reason, "stored as Edm.String") {
				t.Errorf("Get = %v, want a tablekit.DecodeError for %s stored as Edm.String", err, prop)
			}
		})
	}
	parse, err := table.Wrap[parseFields](strict.Client(), strict.Name())
	if err != nil {
		t.Fatal(err)
	}
	got, err := parse.Get(ctx, "p", "r", nil)
	if err != nil {
		t.Fatal(err)
	}
	id, _ := table.ParseGUID("0f8fad5b-d9cb-469f-a165-70867728950e")
	want := parseFields{PartitionKey: "p", RowKey: "r", When: time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC), ID: id, Blob: []byte{0, 1}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("parse Get = %+v, want %+v", got, want)
	}
	// A write through the parse fields keeps them Edm.String.
	if _, err := parse.Upsert(ctx, got, table.Replace); err != nil {
		t.Fatal(err)
	}
	raw, err := strict.Client().GetEntity(ctx, "p", "r", nil)
	if err != nil {
		t.Fatal(err)
	}
	var stored map[string]any
	if err := json.Unmarshal(raw.Value, &stored); err != nil {
		t.Fatal(err)
	}
	for _, prop := range []string{"When", "ID", "Blob"} {
		if a, ok := stored[prop+"@odata.type"]; ok {
			t.Errorf("%s stored with annotation %v, want Edm.String (none)", prop, a)
		}
	}
}

// TestOwnTypesRoundTrip checks that what tablekit writes, Azurite annotates
// on the way back, so the strict decoder reads it.
func TestOwnTypesRoundTrip(t *testing.T) {
	tbl, _ := newRecordedTable[strictFields](t, nil)
	ctx := testenv.Ctx(t)
	id, _ := table.ParseGUID("0f8fad5b-d9cb-469f-a165-70867728950e")
	want := strictFields{PartitionKey: "p", RowKey: "r", When: time.Date(2020, 1, 1, 0, 0, 0, 100, time.UTC), ID: id, Blob: []byte{0, 1}}
	if _, err := tbl.Add(ctx, want); err != nil {
		t.Fatal(err)
	}
	got, err := tbl.Get(ctx, "p", "r", nil)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("Get = %+v, %v; want %+v", got, err, want)
	}
}
