package sas

import "github.com/tablekit/tablekit"

// invalid is the *tablekit.ValidationError of field breaking rule, cause
// the underlying error if any. It never holds a value: keys, identifiers
// and signatures may be secret.
func invalid(field, rule string) error { return invalidErr(field, rule, nil) }

func invalidErr(field, rule string, cause error) error {
	return &tablekit.ValidationError{Operation: "sas", Field: field, Index: -1, Rule: rule, Err: cause}
}
