package query

import (
	"fmt"

	"github.com/tablekit/tablekit/internal/codec"
)

// AnyTypes turns off the check of filter literals against the EDM types of
// T's fields, for filters meant for rows of other types in the same table
// (where a property of the same name may have another type). Without it, a
// comparison such as Property("Count").Eq(Int32(2)) with an int64 Count is
// ErrInvalidFilter before the query runs: the service compares a property
// only with a literal of its own type, so it would match nothing (Azurite
// differs case by case: it matches nothing, converts, or answers 500).
func (q Query[T]) AnyTypes() Query[T] {
	q.anyTypes = true
	return q
}

// checkTypes refuses a comparison whose literal's EDM type differs from
// the stored type of the property. Properties without a static type
// (table.Entity, or names the schema does not map) and Raw filters are
// not checked.
func checkTypes(schema *codec.Plan, n *node) error {
	if n == nil {
		return nil
	}
	if n.op == opCmp {
		if edm, ok := schema.EDMType(string(n.prop)); ok && edm != n.val.kind.String() {
			return fmt.Errorf("%w: property %s is %s in %s, compared with %s %s (AnyTypes allows it)", ErrInvalidFilter, n.prop, edm, schema.Type, n.val.kind, n.val.lit)
		}
	}
	for _, k := range n.kids {
		if err := checkTypes(schema, k); err != nil {
			return err
		}
	}
	return nil
}
