// Package workload is the benchmark workload: it holds what tablekit's benchmarks share: the entity they
// write and read (about 1 KB of JSON, 10 properties of every common EDM type),
// the ways plain aztables code encodes it (a map with EDM annotations,
// aztables.EDMEntity), an in-process transport that answers like the Table
// service without a network, and the client-overhead benchmarks that compare
// tablekit's typed paths with those hand-written ones.
//
// `go test -bench . -benchmem ./devtools/workload` runs the benchmarks;
// devtools/cmd/bench runs the same functions through testing.Benchmark and
// puts the results into BENCHMARKS.md.
package workload

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit/table"
)

// Item is the benchmark entity: an order with 10 properties (strings,
// Int32, Double, Int64, Boolean, DateTime, Guid) of about 1 KB in JSON.
// Customer and Total are the two properties of the projection scenario.
type Item struct {
	PartitionKey string
	RowKey       string
	Customer     string
	Status       string
	Quantity     int32
	Total        float64
	Version      int64
	Gift         bool
	Created      time.Time
	Ref          table.GUID
	Address      string
	Description  string
	table.Meta
}

// Projection is the two of Item's 10 properties that the projection scenario
// selects: what a list of orders shows.
var Projection = []string{"Customer", "Total"}

// Partitions is the number of partitions the benchmark data spreads over.
const Partitions = 50

// PartitionKey is the partition of entity i: "p00" to "p49", round robin.
func PartitionKey(i int) string { return fmt.Sprintf("p%02d", i%Partitions) }

// PartitionKeys lists every partition of the benchmark data, in order.
func PartitionKeys() []string {
	pks := make([]string, Partitions)
	for i := range pks {
		pks[i] = PartitionKey(i)
	}
	return pks
}

var (
	statuses = []string{"new", "paid", "packed", "shipped", "delivered"}
	words    = strings.Fields(`order ships with tracked courier delivery please leave the parcel at the
		front door ring twice fragile glassware inside handle with care gift wrapped in blue paper
		include the printed invoice customer requested morning slot between eight and noon return
		label attached warehouse aisle shelf bin picked checked sealed weight dimensions express`)
	base = time.Date(2024, 3, 1, 8, 0, 0, 0, time.UTC)
)

// text returns n bytes of deterministic word salad for entity i.
func text(i, salt, n int) string {
	var b strings.Builder
	b.Grow(n + 16)
	x := uint32(i)*2654435761 + uint32(salt)*40503
	for b.Len() < n {
		x = x*1664525 + 1013904223
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(words[int(x>>8)%len(words)])
	}
	return b.String()[:n]
}

// NewItem returns entity i of the benchmark data: deterministic, with keys
// PartitionKey(i) and a zero-padded RowKey, and about 1 KB of JSON.
func NewItem(i int) Item {
	var ref table.GUID
	binary.BigEndian.PutUint64(ref[0:8], uint64(i)*0x9E3779B97F4A7C15)
	binary.BigEndian.PutUint64(ref[8:16], uint64(i)^0xD1B54A32D192ED03)
	ref[6] = ref[6]&0x0f | 0x40
	ref[8] = ref[8]&0x3f | 0x80
	return Item{
		PartitionKey: PartitionKey(i),
		RowKey:       table.PadUint(uint64(i), 8),
		Customer:     "customer-" + table.PadUint(uint64(i*7919%100000), 6),
		Status:       statuses[i%len(statuses)],
		Quantity:     int32(1 + i%17),
		Total:        float64(i%100000)*0.37 + 9.99,
		Version:      int64(i)*1_000_003 + 5_000_000_000,
		Gift:         i%3 == 0,
		Created:      base.Add(time.Duration(i)*1234567*time.Microsecond + time.Duration(i%9)*100),
		Ref:          ref,
		Address:      text(i, 1, 120),
		Description:  text(i, 2, 600),
	}
}

// Items returns entities lo to hi-1.
func Items(lo, hi int) []Item {
	items := make([]Item, 0, hi-lo)
	for i := lo; i < hi; i++ {
		items = append(items, NewItem(i))
	}
	return items
}

// dateTimeLayout is the service's DateTime form: 7 fractional digits, UTC.
const dateTimeLayout = "2006-01-02T15:04:05.0000000Z"

// MapEntity is the usual hand-written aztables encoding of it: a map with
// the keys, the values and an "@odata.type" annotation for every type that
// JSON cannot carry by itself (Int64 as a string, Double, DateTime, Guid).
func MapEntity(it *Item) map[string]any {
	return map[string]any{
		"PartitionKey":       it.PartitionKey,
		"RowKey":             it.RowKey,
		"Customer":           it.Customer,
		"Status":             it.Status,
		"Quantity":           it.Quantity,
		"Total":              it.Total,
		"Total@odata.type":   "Edm.Double",
		"Version":            strconv.FormatInt(it.Version, 10),
		"Version@odata.type": "Edm.Int64",
		"Gift":               it.Gift,
		"Created":            it.Created.UTC().Format(dateTimeLayout),
		"Created@odata.type": "Edm.DateTime",
		"Ref":                it.Ref.String(),
		"Ref@odata.type":     "Edm.Guid",
		"Address":            it.Address,
		"Description":        it.Description,
	}
}

// MarshalMap is the hand-written write path's encoding: MapEntity and
// encoding/json.
func MarshalMap(it *Item) ([]byte, error) { return json.Marshal(MapEntity(it)) }

// EDMEntity is it as aztables' own typed helper, aztables.EDMEntity.
func EDMEntity(it *Item) aztables.EDMEntity {
	return aztables.EDMEntity{
		Entity: aztables.Entity{PartitionKey: it.PartitionKey, RowKey: it.RowKey},
		Properties: map[string]any{
			"Customer":    it.Customer,
			"Status":      it.Status,
			"Quantity":    it.Quantity,
			"Total":       it.Total,
			"Version":     aztables.EDMInt64(it.Version),
			"Gift":        it.Gift,
			"Created":     aztables.EDMDateTime(it.Created),
			"Ref":         aztables.EDMGUID(it.Ref.String()),
			"Address":     it.Address,
			"Description": it.Description,
		},
	}
}

// MarshalEDM is the aztables.EDMEntity write path's encoding.
func MarshalEDM(it *Item) ([]byte, error) { return json.Marshal(EDMEntity(it)) }
