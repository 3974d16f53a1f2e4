package codec_test

import (
	"testing"

	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/devtools/workload"
)

// TestAllocsRawDecode: an entity as the service writes it, a GUID among its
// properties, costs three allocations read as a table.RawEntity: its
// properties, one string holding its keys and ETag, and the entity
// Table.Unmarshal returns. The GUID and Timestamp are checked where they
// lie.
func TestAllocsRawDecode(t *testing.T) {
	testenv.SkipAllocsUnderRace(t)
	in := []byte(`{"odata.etag":"W/\"datetime'2024-01-02T03%3A04%3A05.1234567Z'\"","PartitionKey":"p","RowKey":"r","Timestamp":"2024-01-02T03:04:05.1234567Z",` +
		`"Ref@odata.type":"Edm.Guid","Ref":"e3779b97-f4a7-4150-91b5-4a32d192ed13","When@odata.type":"Edm.DateTime","When":"2024-03-01T08:00:19.7530727Z","N":5,"S":"text"}`)
	raw := workload.RawTable()
	if _, err := raw.Unmarshal(in); err != nil {
		t.Fatal(err)
	}
	if got, want := testing.AllocsPerRun(100, func() { _, _ = raw.Unmarshal(in) }), 3.0; got > want {
		t.Errorf("%v allocations per entity, want at most %v", got, want)
	}
}
