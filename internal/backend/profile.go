package backend

import (
	"fmt"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit/internal/wire"
)

// Kind names a backend. The zero Kind is Auto: detect it from the endpoint.
type Kind uint8

const (
	// Auto detects the backend from the endpoint (see Detect).
	Auto Kind = iota
	// TableStorage is Azure Table Storage (and Azurite, which emulates it).
	TableStorage
	// CosmosDB is the Azure Cosmos DB for Table API.
	CosmosDB
)

// String is the backend's name as errors should say it.
func (k Kind) String() string {
	switch k {
	case Auto:
		return "auto"
	case TableStorage:
		return "Azure Table Storage"
	case CosmosDB:
		return "Azure Cosmos DB for Table"
	}
	return fmt.Sprintf("backend.Kind(%d)", uint8(k))
}

// Unit is what a length limit counts.
type Unit uint8

const (
	// UTF16Units counts UTF-16 code units, as Table Storage stores strings.
	UTF16Units Unit = iota + 1
	// UTF8Bytes counts the bytes of the UTF-8 encoding.
	UTF8Bytes
)

// String is the unit as a message says it after a number.
func (u Unit) String() string {
	if u == UTF8Bytes {
		return "bytes of UTF-8"
	}
	return "UTF-16 code units"
}

// Limit is the greatest length a value may have, in a unit.
type Limit struct {
	Max  int
	Unit Unit
}

// Len is the length of s in the limit's unit (invalid UTF-8 bytes count one
// unit each).
func (l Limit) Len(s string) int {
	if l.Unit == UTF8Bytes {
		return len(s)
	}
	return wire.UTF16Len(s)
}

// Fits reports whether s is within the limit.
func (l Limit) Fits(s string) bool {
	// A string of n bytes has at most n UTF-16 code units.
	return len(s) <= l.Max || (l.Unit == UTF16Units && wire.UTF16Len(s) <= l.Max)
}

// SizeRule is how a backend measures an entity against MaxEntityBytes.
type SizeRule uint8

const (
	// StorageFormula is Table Storage's documented formula: 4 bytes, plus
	// the keys in UTF-16, plus per property 8 bytes, its name in UTF-16 and
	// its value's size (internal/codec computes it).
	StorageFormula SizeRule = iota + 1
	// JSONBytes is the UTF-8 length of the entity's JSON.
	JSONBytes
)

// Profile is what a client can know about a backend before sending a
// request. Every Max is the greatest allowed value (inclusive). Profiles
// are values: copy and compare them freely.
type Profile struct {
	Kind Kind

	// MaxTransactionOps is the most operations one $batch changeset holds.
	MaxTransactionOps int
	// MaxTransactionBytes is the largest $batch request body, in bytes.
	MaxTransactionBytes int

	// MaxEntityBytes is the largest entity, measured by EntitySize.
	MaxEntityBytes int
	EntitySize     SizeRule
	// PartitionKey and RowKey bound the keys' lengths.
	PartitionKey, RowKey Limit
	// MaxProperties is the most user properties (keys and Timestamp
	// excluded) one entity has.
	MaxProperties int
	// MaxPropertyName is the longest property name, in characters.
	MaxPropertyName int
	// MaxString bounds one string property's value.
	MaxString Limit
	// MaxBinaryBytes is the largest Edm.Binary value, in bytes (decoded).
	MaxBinaryBytes int

	// TableNamesCaseSensitive: "Orders" and "orders" are two tables.
	TableNamesCaseSensitive bool
	// KeyOrder: query results come sorted by PartitionKey, then RowKey, so
	// a page ends at a key and the next page starts after it.
	KeyOrder bool
	// MaxPageSize is the largest $top; 0 when none is documented.
	MaxPageSize int

	// The calls the backend has: Get/Set Table Service Properties, Get
	// Table Service Stats, Get/Set Table ACL (stored access policies), CORS
	// preflight, and a readable secondary location (RA-GRS) to send reads to.
	ServiceProperties, ServiceStats, AccessPolicies, CORS, SecondaryLocation bool

	// MergeAsPost: a merge goes out as POST with "X-HTTP-Method: MERGE"
	// instead of PATCH.
	MergeAsPost bool
}

// ReservedProperties are the user property names the backend refuses
// beyond the system properties (wire.IsSystemProperty). A new slice.
func (p Profile) ReservedProperties() []string {
	if p.Kind == CosmosDB {
		names := cosmosReserved()
		return names[:]
	}
	return nil
}

// HasReserved reports a backend with ReservedProperties.
func (p Profile) HasReserved() bool { return p.Kind == CosmosDB }

// Reserved reports whether name is one of ReservedProperties, compared
// exactly as the documentation spells them.
func (p Profile) Reserved(name string) bool {
	if p.Kind != CosmosDB {
		return false
	}
	for _, r := range cosmosReserved() {
		if name == r {
			return true
		}
	}
	return false
}

// Audience is the Microsoft Entra ID audience of tokens for the backend in
// cloud c, as aztables chooses it (service_client.go): Table Storage uses
// https://storage.azure.com in every cloud; Cosmos DB the audience of c's
// aztables.ServiceName entry (https://cosmos.azure.com in the public cloud).
// The token scope is the audience + "/.default". Empty when c has no entry.
func (p Profile) Audience(c cloud.Configuration) string {
	if p.Kind != CosmosDB {
		return "https://storage.azure.com"
	}
	return c.Services[aztables.ServiceName].Audience
}
