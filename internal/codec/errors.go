package codec

import (
	"errors"
	"fmt"

	"github.com/tablekit/tablekit/internal/wire"
)

// Sentinels re-exported by package table; they carry its prefix because that
// is where users meet them.
var (
	// ErrInvalidType reports a Go type that cannot be mapped to an entity.
	ErrInvalidType = errors.New("table: invalid entity type")
	// ErrInvalidEntity reports a value that the service would reject; it is
	// returned before any request is sent.
	ErrInvalidEntity = errors.New("table: invalid entity")
	// ErrDecode reports a stored entity that does not fit the Go type.
	ErrDecode = errors.New("table: cannot decode entity")
	// ErrInvalidKey reports a key given on its own that breaks the
	// service's rules (see CheckKey).
	ErrInvalidKey = errors.New("table: invalid key")
	// ErrInvalidOptions reports an option value out of range, such as a
	// $select name that is not a property (see SelectList).
	ErrInvalidOptions = errors.New("table: invalid options")
)

// TypeError explains why a Go type cannot be used as an entity.
type TypeError struct {
	Type   string // the Go type, e.g. "main.Order"
	Field  string // the Go field, empty when the type itself is wrong
	Reason string
}

func (e *TypeError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("table: type %s: %s", e.Type, e.Reason)
	}
	return fmt.Sprintf("table: type %s: field %s: %s", e.Type, e.Field, e.Reason)
}

// Is makes errors.Is(err, ErrInvalidType) true.
func (e *TypeError) Is(target error) bool { return target == ErrInvalidType }

// Validation rules, as named in ValidationError.Rule.
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

// ValidationError names the property and the service rule that a value
// breaks. The value itself is not included: it may be large or sensitive.
type ValidationError struct {
	Property string // the property (or key) name on the service
	Rule     string // one of the Rule constants
	Detail   string // sizes or the underlying error, never the value
	Err      error  // an underlying error, e.g. from MarshalText
	key      bool   // a key given on its own (CheckKey), not in an entity
}

func (e *ValidationError) Error() string {
	s := "table: invalid entity: property " + e.Property + ": " + e.Rule
	if e.key {
		s = "table: invalid key: " + e.Property + ": " + e.Rule
	}
	if e.Detail != "" {
		s += " (" + e.Detail + ")"
	}
	return s
}

// Is makes errors.Is(err, ErrInvalidEntity) true, and ErrInvalidKey too
// for a key given on its own and for an empty key anywhere, so that every
// call refuses one the same way.
func (e *ValidationError) Is(target error) bool {
	return target == ErrInvalidEntity || (target == ErrInvalidKey && (e.key || e.Rule == RuleKeyEmpty))
}

// Unwrap returns the underlying error, if any.
func (e *ValidationError) Unwrap() error { return e.Err }

// DecodeError names the stored property that does not fit the Go field.
type DecodeError struct {
	Property string
	Reason   string
	Err      error
}

func (e *DecodeError) Error() string {
	if e.Property == "" {
		return "table: cannot decode entity: " + e.Reason
	}
	return "table: cannot decode entity: property " + e.Property + ": " + e.Reason
}

// Is makes errors.Is(err, ErrDecode) true.
func (e *DecodeError) Is(target error) bool { return target == ErrDecode }

// Unwrap returns the underlying error, if any.
func (e *DecodeError) Unwrap() error { return e.Err }
