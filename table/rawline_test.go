package table_test

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/tablekit/tablekit/table"
)

// RawEntity.AppendJSON writes a raw entity a read made as Table.AppendJSON
// does, byte for byte, without checking it again: what the service sent
// for each property, the Timestamp the read returned, and nothing else.
func TestRawEntityAppendJSON(t *testing.T) {
	svc, err := table.NewService("UseDevelopmentStorage=true", nil)
	if err != nil {
		t.Fatal(err)
	}
	rt, err := table.New[table.RawEntity](svc, "lines")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, sent string // sent: the entity as the service sends it
	}{
		{"every type", `{"odata.etag":"W/\"1\"","PartitionKey":"p","RowKey":"r","Timestamp":"2024-05-06T06:08:09.1234567Z",` +
			`"I64@odata.type":"Edm.Int64","I64":"9007199254740993","When@odata.type":"Edm.DateTime","When":"2024-02-29T23:59:59.1234567Z",` +
			`"Id@odata.type":"Edm.Guid","Id":"0f8fad5b-d9cb-469f-a165-70867728950e","Bin@odata.type":"Edm.Binary","Bin":"AAEC/w==",` +
			`"NaN@odata.type":"Edm.Double","NaN":"NaN","Inf@odata.type":"Edm.Double","Inf":"-Infinity","Whole@odata.type":"Edm.Double","Whole":1.0,` +
			`"Bare":1.5,"I32":-7,"B":true,"S":"a \"quoted\" \u00e9"}`},
		{"keys to escape", `{"PartitionKey":"a\"b","RowKey":"\u00e9 \u2028","N":1}`},
		{"no properties", `{"PartitionKey":"p","RowKey":"r","Timestamp":"2024-05-06T06:08:09Z"}`},
	}
	for _, tt := range tests {
		e, err := rt.Unmarshal([]byte(tt.sent))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		e.ETag = ""
		got := e.AppendJSON([]byte("prefix"))
		want, err := rt.AppendJSON([]byte("prefix"), e)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, want)
		}
		back, err := rt.Unmarshal(got[len("prefix"):])
		if err != nil {
			t.Fatalf("%s: reading back: %v", tt.name, err)
		}
		if back.PartitionKey != e.PartitionKey || back.RowKey != e.RowKey || !back.Timestamp.Equal(e.Timestamp) || !bytes.Equal(back.Properties, e.Properties) {
			t.Errorf("%s: read back %+v, want %+v", tt.name, back, e)
		}
	}
}

// Properties nil, empty or with white space around its members writes the
// same object.
func TestRawEntityAppendJSONEmpty(t *testing.T) {
	for _, props := range []string{"", "{}", " { } ", `{ "A":1 }`} {
		e := table.RawEntity{PartitionKey: "p", RowKey: "r", Properties: json.RawMessage(props)}
		want := `{"PartitionKey":"p","RowKey":"r"}`
		if props == `{ "A":1 }` {
			want = `{"PartitionKey":"p","RowKey":"r","A":1}`
		}
		if got := string(e.AppendJSON(nil)); got != want {
			t.Errorf("Properties %q: got %s, want %s", props, got, want)
		}
	}
}

// Writing what a scan reads as JSON lines: each raw entity's JSON is the
// service's, kept by the read, so the line costs a copy.
func ExampleRawEntity_AppendJSON() {
	// As a query over a table.Table[table.RawEntity] yields it.
	e := table.RawEntity{PartitionKey: "alice", RowKey: "00000042",
		Properties: json.RawMessage(`{"Total@odata.type":"Edm.Double","Total":10.0,"Count@odata.type":"Edm.Int64","Count":"5"}`)}
	e.Timestamp = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

	var line []byte // reused for every entity
	line = append(e.AppendJSON(line[:0]), '\n')
	os.Stdout.Write(line)
	// Output:
	// {"PartitionKey":"alice","RowKey":"00000042","Total@odata.type":"Edm.Double","Total":10.0,"Count@odata.type":"Edm.Int64","Count":"5","Timestamp@odata.type":"Edm.DateTime","Timestamp":"2025-03-01T12:00:00.0000000Z"}
}
