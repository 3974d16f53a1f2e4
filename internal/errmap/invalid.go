package errmap

import (
	"fmt"

	"github.com/tablekit/tablekit"
)

// Invalid is the *tablekit.ValidationError of field breaking rule in op.
func Invalid(op, field, rule string) *tablekit.ValidationError {
	return &tablekit.ValidationError{Operation: op, Field: field, Index: -1, Rule: rule}
}

// Invalidf is Invalid with the rule formatted.
func Invalidf(op, field, format string, args ...any) *tablekit.ValidationError {
	return Invalid(op, field, fmt.Sprintf(format, args...))
}
