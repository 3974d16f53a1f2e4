package batch

import (
	"fmt"
	"strings"

	"github.com/tablekit/tablekit"
)

// invalidAt is err, a rule broken by operation i of op ("transaction" or
// "write"; i is -1 for the whole transaction), as a
// *tablekit.ValidationError naming the operation. err is not changed.
func invalidAt(op string, i int, err error) error {
	if ve, ok := err.(*tablekit.ValidationError); ok {
		v := *ve
		v.Operation, v.Index = op, i
		return &v
	}
	return &tablekit.ValidationError{Operation: op, Index: i, Rule: "invalid operation", Err: err}
}

// errorf is fmt.Errorf for this package's wrappers: every error operand is
// wrapped (errors.Is and errors.As reach it), and a "batch: " prefix that
// the message has already said is left out of the operands after it, so
// that a wrapped failure reads "batch: not sent: operation 3 ..." rather
// than "batch: not sent: batch: operation 3 ...".
func errorf(format string, args ...any) error {
	const prefix = "batch: "
	said := strings.HasPrefix(format, prefix)
	e := &chain{}
	texts := make([]any, len(args))
	for i, a := range args {
		texts[i] = a
		if err, ok := a.(error); ok {
			e.errs = append(e.errs, err)
			msg := err.Error()
			if said {
				msg = strings.TrimPrefix(msg, prefix)
			}
			said = said || strings.HasPrefix(msg, prefix)
			texts[i] = msg
		}
	}
	e.msg = fmt.Sprintf(strings.ReplaceAll(format, "%w", "%s"), texts...)
	return e
}

// chain is an error made by errorf.
type chain struct {
	msg  string
	errs []error
}

func (e *chain) Error() string   { return e.msg }
func (e *chain) Unwrap() []error { return e.errs }
