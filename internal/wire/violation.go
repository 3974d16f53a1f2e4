package wire

// Violation is a service rule that a name or value breaks. Callers wrap it
// in their own error types (table's tablekit.ValidationError, sas's tablekit.ValidationError),
// which is why it is not an error itself.
type Violation struct {
	Rule   string // the rule, e.g. RuleKeyTooLong
	Detail string // sizes, positions or a quoted name; never a key or value
}

// String is the rule with its detail in parentheses.
func (v *Violation) String() string {
	if v.Detail == "" {
		return v.Rule
	}
	return v.Rule + " (" + v.Detail + ")"
}
