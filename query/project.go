package query

import (
	"slices"

	"github.com/tablekit/tablekit/internal/codec"
	"github.com/tablekit/tablekit/internal/errmap"
	"github.com/tablekit/tablekit/table"
)

// Project returns q decoding into U instead of T: a smaller struct for a
// query that selects a few properties. Filters and $select stay checked
// against T. Every property U maps must be selected (with Select; without
// it, Project selects U's properties) and have the EDM type T stores it
// as (an Int32 may widen into an int64 field), so a mismatch is an error before any request rather than a zero
// field or a tablekit.DecodeError on some page. Keys, ETag and Timestamp are always
// there.
func Project[U, T any](q Query[T]) Query[U] {
	out := Query[U]{filter: q.filter, sel: q.sel, hasSelect: q.hasSelect, pageSize: q.pageSize, limit: q.limit,
		anyTypes: q.anyTypes, noTableScan: q.noTableScan, schema: q.schema, err: q.err}
	if q.t != nil {
		t, err := table.As[U](q.t)
		if err != nil {
			return out.keepFirstErr(err)
		}
		out.t = t
	}
	into, err := codec.PlanFor[U]()
	if err != nil {
		return out.keepFirstErr(err)
	}
	if into.IsDynamic() || q.schema == nil {
		return out
	}
	if !out.hasSelect {
		out.sel, out.hasSelect = into.Properties(), true
	}
	for _, name := range into.Properties() {
		if !slices.Contains(out.sel, name) {
			return out.keepFirstErr(errmap.Invalidf("query", "options", "%s maps %s, which the query does not select", into.Type, name))
		}
		if q.schema.IsDynamic() {
			continue
		}
		want, ok := q.schema.EDMType(name)
		got, _ := into.EDMType(name)
		if ok && got != want && !(got == "Edm.Int64" && want == "Edm.Int32") {
			return out.keepFirstErr(errmap.Invalidf("query", "options", "%s maps %s as %s, %s stores it as %s", into.Type, name, got, q.schema.Type, want))
		}
	}
	return out
}
