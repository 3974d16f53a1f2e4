package query

import (
	"slices"
	"strings"

	"github.com/tablekit/tablekit/internal/codec"
	"github.com/tablekit/tablekit/internal/errmap"
)

// AnyTypes turns off the checks of the filter against T (property names
// and literal types), for filters meant for rows of other types in the same
// table.
func (q Query[T]) AnyTypes() Query[T] {
	q.anyTypes = true
	return q
}

// checkSchema refuses a filter that names a property the schema does not
// have, or compares one with a literal of another type than its stored
// type. Raw filters are not checked.
func checkSchema(schema *codec.Plan, n *node) error {
	var bad []string
	n.properties(func(p Property) {
		if !schema.HasProperty(string(p)) && !slices.Contains(bad, string(p)) {
			bad = append(bad, string(p))
		}
	})
	switch len(bad) {
	case 0:
		return checkTypes(schema, n)
	case 1:
		return errmap.Invalidf("query", "filter", "%s is not a property of %s (AnyTypes allows it)", bad[0], schema.Type)
	}
	return errmap.Invalidf("query", "filter", "%s are not properties of %s (AnyTypes allows them)", strings.Join(bad, ", "), schema.Type)
}

// checkTypes refuses a comparison whose literal's EDM type differs from
// the stored type of the property. Properties without a static type
// (table.Entity) are not checked.
func checkTypes(schema *codec.Plan, n *node) error {
	if n == nil {
		return nil
	}
	if n.op == opCmp {
		if edm, ok := schema.EDMType(string(n.prop)); ok && edm != n.val.kind.String() {
			return errmap.Invalidf("query", "filter", "property %s is %s in %s, compared with %s %s (AnyTypes allows it)", n.prop, edm, schema.Type, n.val.kind, n.val.lit)
		}
	}
	for _, k := range n.kids {
		if err := checkTypes(schema, k); err != nil {
			return err
		}
	}
	return nil
}
