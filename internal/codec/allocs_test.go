package codec_test

import (
	"runtime"
	"strings"
	"testing"

	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/devtools/workload"
	"github.com/tablekit/tablekit/internal/codec"
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

// TestAllocsRawPropsGivenBack: a program that gives each entity's
// properties back (codec.ReleaseRawProps, as tablekit export does)
// allocates a small part of their size per entity read, where one that
// keeps them allocates at least their size.
func TestAllocsRawPropsGivenBack(t *testing.T) {
	testenv.SkipAllocsUnderRace(t)
	in := []byte(`{"odata.etag":"W/\"datetime'2024-01-02T03%3A04%3A05.1234567Z'\"","PartitionKey":"p","RowKey":"r","Timestamp":"2024-01-02T03:04:05.1234567Z",` +
		`"N@odata.type":"Edm.Int64","N":"5","S":"` + strings.Repeat("x", 2000) + `"}`)
	raw := workload.RawTable()
	e, err := raw.Unmarshal(in)
	if err != nil {
		t.Fatal(err)
	}
	size := float64(len(e.Properties))
	perEntity := func(release bool) float64 {
		const n = 1000
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range n {
			e, _ := raw.Unmarshal(in)
			if release {
				codec.ReleaseRawProps(e.Properties)
			}
		}
		runtime.ReadMemStats(&after)
		return float64(after.TotalAlloc-before.TotalAlloc) / n
	}
	codec.GivingBack(t)
	if got := perEntity(false); got < size {
		t.Errorf("kept: %.0f bytes allocated per entity, want at least the properties' %.0f", got, size)
	}
	if got := perEntity(true); got > size/4 {
		t.Errorf("given back: %.0f bytes allocated per entity, want at most a quarter of the properties' %.0f", got, size)
	}
}
