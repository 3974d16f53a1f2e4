package batch

import (
	"github.com/tablekit/tablekit/internal/core"
	"github.com/tablekit/tablekit/table"
)

// Plan returns the transactions Write would send for ops, without sending
// anything: the operation count of each, in the order Write forms them
// (grouped by PartitionKey, at most MaxOps each and within the backend's
// body size). A planner uses it to count the requests and their cost
// before a job runs. An invalid operation, which Write would refuse
// before sending, is a *tablekit.ValidationError naming its index.
func Plan[T any](t *table.Table[T], ops []Op[T]) ([]int, error) {
	if err := usable(t); err != nil {
		return nil, err
	}
	enc := newEncoder(t, core.NewTxArena(txFirstBlock, txFirstBlock, 0)) // parts counted, then dropped
	var sizes []int
	for _, g := range groupByPartition(enc, ops) {
		// Write keeps one chunk of a partition open at a time (without
		// Reorder): an operation that does not fit it, or addresses an
		// entity already in it, seals it and opens the next.
		var open txLimits
		var sealed bool
		for j, i := range g.positions {
			e, err := enc.encode(ops[i], &g.keys[j])
			if err == nil {
				alone := enc.limits()
				err = alone.check(&e)
			}
			if err != nil {
				return nil, invalidAt("write", i, err)
			}
			if open.ops == 0 || sealed || open.check(&e) != nil {
				open, sealed = enc.limits(), false
				sizes = append(sizes, 0)
			}
			open.add(&e)
			sizes[len(sizes)-1]++
			sealed = open.full()
		}
	}
	return sizes, nil
}
