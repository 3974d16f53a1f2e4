package table

import (
	"fmt"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/internal/codec"
)

// EDM returns e as an aztables.EDMEntity holding the same values: int64 as
// EDMInt64, time.Time as EDMDateTime in UTC (aztables formats it with a
// literal Z whatever the zone), GUID as EDMGUID, []byte as EDMBinary.
// Keys are returned as they are. Writing the result with aztables loses
// what its JSON encoding cannot say: it doubles single quotes in keys, a
// whole float64 such as 1.0 goes out as 1, stored as Edm.Int32, and a NaN
// or infinite float64 cannot be encoded at all. Write entities with
// Table[Entity] instead.
func (e Entity) EDM() (aztables.EDMEntity, error) {
	out := aztables.EDMEntity{
		Entity:     aztables.Entity{PartitionKey: e.PartitionKey, RowKey: e.RowKey, Timestamp: aztables.EDMDateTime(e.Timestamp)},
		ETag:       string(e.ETag),
		Properties: make(map[string]any, len(e.Properties)),
	}
	for name, v := range e.Properties {
		var x any
		switch v := v.(type) {
		case string, bool, int32, float64:
			x = v
		case int64:
			x = aztables.EDMInt64(v)
		case time.Time:
			x = aztables.EDMDateTime(v.UTC())
		case GUID:
			x = aztables.EDMGUID(v.String())
		case []byte:
			x = aztables.EDMBinary(v)
		default:
			return aztables.EDMEntity{}, unsupported(name, v)
		}
		out.Properties[name] = x
	}
	return out, nil
}

// EntityFromEDM converts an aztables.EDMEntity, as aztables reads or
// builds it, into an Entity with the same values: EDMInt64 to int64,
// EDMDateTime to time.Time in UTC, EDMGUID to GUID (which must parse),
// EDMBinary to []byte; string, bool, int32 and float64 as they are. Any
// other value is a *tablekit.ValidationError naming the property. That includes
// nil, which is what aztables' decoder makes of a property annotated
// Edm.Double (or Edm.Int32, Edm.String, Edm.Boolean): read such entities
// with Table[Entity], which keeps them.
func EntityFromEDM(e aztables.EDMEntity) (Entity, error) {
	out := Entity{PartitionKey: e.PartitionKey, RowKey: e.RowKey, Properties: make(map[string]any, len(e.Properties))}
	out.ETag = azcore.ETag(e.ETag)
	if ts := time.Time(e.Timestamp); !ts.IsZero() {
		out.Timestamp = ts.UTC()
	}
	for name, v := range e.Properties {
		var x any
		switch v := v.(type) {
		case string, bool, int32, float64:
			x = v
		case aztables.EDMInt64:
			x = int64(v)
		case aztables.EDMDateTime:
			x = time.Time(v).UTC()
		case aztables.EDMGUID:
			g, err := ParseGUID(string(v))
			if err != nil {
				return Entity{}, &tablekit.ValidationError{Field: name, Index: -1, Rule: "invalid Edm.Guid", Err: err}
			}
			x = g
		case aztables.EDMBinary:
			x = []byte(v)
		default:
			return Entity{}, unsupported(name, v)
		}
		out.Properties[name] = x
	}
	return out, nil
}

// unsupported names a property whose Go value has no place in the other
// representation.
func unsupported(name string, v any) error {
	detail := "nil"
	if v != nil {
		detail = fmt.Sprintf("Go type %T", v)
	}
	return &tablekit.ValidationError{Field: name, Index: -1, Rule: codec.RuleDynamicType, Detail: detail}
}
