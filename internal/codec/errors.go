package codec

import (
	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/internal/wire"
)

// The error types codec builds are package tablekit's.
type (
	ValidationError = tablekit.ValidationError
	DecodeError     = tablekit.DecodeError
)

// typeError is the tablekit.ValidationError of a Go type (and field) that cannot
// be an entity.
func typeError(typ, field, reason string) error {
	if field == "" {
		return &tablekit.ValidationError{Operation: "type", Field: typ, Index: -1, Rule: reason}
	}
	return &tablekit.ValidationError{Operation: "type", Field: field, Index: -1, Rule: reason, Detail: "type " + typ}
}

// Validation rules, as named in tablekit.ValidationError.Rule.
const (
	RuleKeyTooLong   = "key too long"
	RuleKeyCharacter = wire.RuleKeyCharacter
	// RuleKeyEmpty: the service allows empty keys, but aztables v1.4.1
	// refuses an empty PartitionKey on Get, Delete, Upsert, Update and in
	// transactions, and an empty RowKey on Update; one rule for every call
	// is clearer than keys that work on some paths only.
	RuleKeyEmpty          = "empty key"
	RuleTooManyProperties = "too many properties"
	RulePropertyName      = "invalid property name"
	RuleStringTooLong     = "string too long"
	RuleBinaryTooLarge    = "binary value too large"
	RuleEntityTooLarge    = "entity too large"
	RuleInt32Range        = "integer out of Edm.Int32 range"
	RuleInt64Range        = "integer out of Edm.Int64 range"
	RuleDateTimeRange     = "time outside the Edm.DateTime range 1601-01-01 to 9999-12-31"
	RuleInvalidUTF8       = wire.RuleInvalidUTF8
	RuleMarshal           = "value cannot be marshalled"
	// RuleEDMValue: a value of a table.RawEntity outside its annotated
	// type's JSON form or range (or a number without annotation beyond
	// every type's); Detail says which and how.
	RuleEDMValue = "value outside its EDM type's form or range"
)
