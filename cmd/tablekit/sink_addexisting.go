package main

import (
	"context"
	"errors"
	"slices"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/batch"
	"github.com/tablekit/tablekit/query"
	"github.com/tablekit/tablekit/table"
)

// What an add-mode import does with an entity that is already stored: a
// transaction of adds is refused whole when one of its entities exists,
// and the service names only the first. One read of the transaction's
// RowKey range tells which of them exist; the missing ones are sent again.

// reasonExists is the reject of --mode add for an entity already stored.
const reasonExists = "the entity already exists (--mode add refuses it; --mode add-missing would leave it as it is)"

// settleAdds looks at what is stored for the adds of ch, a transaction
// refused because an entity exists, or whose retry after a lost reply
// found one (then it committed whole, or not at all). It returns how many
// are stored by this job, the rejects, and the positions to send again:
// those whose entity is missing.
func (w *roundWriter) settleAdds(ctx context.Context, pending []item, ch batch.Chunk) (stored int, rejects []reject, again map[int]bool, err error) {
	rks := make([]string, len(ch.Ops))
	for j, i := range ch.Ops {
		rks[j] = pending[i].ent.RowKey
	}
	sure := ""
	var se *tablekit.ServiceError
	if errors.As(ch.Err, &se) && se.Index >= 0 && se.Index < len(pending) {
		sure = pending[se.Index].ent.RowKey
	}
	found, err := w.lookup(ctx, ch.PartitionKey, rks, sure)
	if err != nil {
		return 0, nil, nil, err
	}
	if errors.Is(ch.Err, tablekit.ErrMaybeCommitted) {
		all := true
		for _, i := range ch.Ops {
			got, ok := found[pending[i].ent.RowKey]
			all = all && ok && sameProps(got.Properties, pending[i].ent.Properties)
		}
		if all {
			return len(ch.Ops), nil, nil, nil // the lost attempt committed
		}
	}
	again = map[int]bool{}
	for _, i := range ch.Ops {
		it := &pending[i]
		got, ok := found[it.ent.RowKey]
		switch {
		case !ok:
			again[i] = true
		case (w.resumed || it.inDoubt) && sameProps(got.Properties, it.ent.Properties):
			stored++ // this job's own earlier write
		case w.keepExisting:
			w.existing++
		default:
			rejects = append(rejects, reject{Line: it.line, Reason: reasonExists, Input: it.input()})
		}
	}
	return stored, rejects, again, nil
}

// lookup returns the stored entities of partition pk among the RowKeys
// rks: one read of their range, then point reads of the keys it did not
// reach (the range held more than a page) and of sure, the key the service
// said exists, should the range's order differ from the service's.
func (w *roundWriter) lookup(ctx context.Context, pk string, rks []string, sure string) (map[string]table.Entity, error) {
	want := make(map[string]bool, len(rks))
	for _, rk := range rks {
		want[rk] = true
	}
	f := query.And(query.Partition(pk),
		query.RowKey.Ge(query.String(slices.Min(rks))), query.RowKey.Le(query.String(slices.Max(rks))))
	found := make(map[string]table.Entity, len(rks))
	read := 0
	for e, err := range query.New(w.t).Where(f).PageSize(query.MaxPageSize).Limit(query.MaxPageSize).All(ctx) {
		if err != nil {
			return nil, err
		}
		read++
		if want[e.RowKey] {
			found[e.RowKey] = e
		}
	}
	for _, rk := range rks {
		if _, ok := found[rk]; ok || (read < query.MaxPageSize && rk != sure) {
			continue
		}
		e, err := w.t.Get(ctx, pk, rk, nil)
		switch {
		case errors.Is(err, tablekit.ErrNotFound):
		case err != nil:
			return nil, err
		default:
			found[rk] = e
		}
	}
	return found, nil
}
