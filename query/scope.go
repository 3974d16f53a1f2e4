package query

// Scope says how much of the table the service reads to answer a filter,
// from cheapest to most expensive, as read from the filter's shape: anything
// not provably narrow counts as a table scan.
type Scope uint8

const (
	// ScopeTableScan: no usable PartitionKey condition; the service reads
	// every partition, which is slow and costly on large tables.
	ScopeTableScan Scope = iota
	// ScopeRange: PartitionKey is bounded (ge/gt/lt/le, or a prefix) but not
	// fixed; the service reads the partitions in the range.
	ScopeRange
	// ScopePartition: PartitionKey eq one value; the service reads one
	// partition, seeking on RowKey bounds if there are any.
	ScopePartition
	// ScopePoint: PartitionKey and RowKey are both fixed; at most one entity.
	// A filter that is exactly a Point runs as a GET by key.
	ScopePoint
)

// String returns "point", "partition", "range" or "table scan", for logs.
func (s Scope) String() string {
	switch s {
	case ScopePoint:
		return "point"
	case ScopePartition:
		return "partition"
	case ScopeRange:
		return "range"
	}
	return "table scan"
}

// SinglePartition reports whether the filter stays within one partition
// (point or partition scope): one partition server answers it, and its cost
// does not grow with the rest of the table.
func (s Scope) SinglePartition() bool { return s == ScopePoint || s == ScopePartition }

// Scope tells point, partition, range and table-scan filters apart. An
// invalid filter and the zero Filter are table scans.
func (f Filter) Scope() Scope {
	if f.err != nil || f.n == nil {
		return ScopeTableScan
	}
	k := f.n.keys()
	switch {
	case k.pk != nil && k.rk != nil:
		return ScopePoint
	case k.pk != nil:
		return ScopePartition
	case k.ranged:
		return ScopeRange
	}
	return ScopeTableScan
}

// keyInfo is what a filter fixes about the keys.
type keyInfo struct {
	pk, rk *string // fixed by eq
	ranged bool    // PartitionKey bounded
}

func (n *node) keys() keyInfo {
	switch n.op {
	case opCmp:
		switch n.prop {
		case PartitionKey:
			switch n.cmp {
			case "eq":
				return keyInfo{pk: &n.val.str}
			case "gt", "lt", "le":
				return keyInfo{ranged: true}
			case "ge":
				return keyInfo{ranged: n.val.str != ""} // ge '' bounds nothing
			}
		case RowKey:
			if n.cmp == "eq" {
				return keyInfo{rk: &n.val.str}
			}
		}
		return keyInfo{}
	case opAnd:
		var k keyInfo
		for _, c := range n.kids {
			ck := c.keys()
			if k.pk == nil {
				k.pk = ck.pk
			}
			if k.rk == nil {
				k.rk = ck.rk
			}
			k.ranged = k.ranged || ck.ranged
		}
		return k
	case opOr:
		// Only "the same partition on every side" stays narrow.
		first := n.kids[0].keys()
		if first.pk == nil {
			return keyInfo{}
		}
		k := keyInfo{pk: first.pk, rk: first.rk}
		for _, c := range n.kids[1:] {
			ck := c.keys()
			if ck.pk == nil || *ck.pk != *k.pk {
				return keyInfo{}
			}
			if k.rk != nil && (ck.rk == nil || *ck.rk != *k.rk) {
				k.rk = nil
			}
		}
		return k
	}
	return keyInfo{}
}

// point returns the keys if the filter is exactly PartitionKey eq pk and
// RowKey eq rk: the one shape that runs as a GET by key.
func (f Filter) point() (pk, rk string, ok bool) {
	if f.err != nil || f.n == nil || f.n.op != opAnd || len(f.n.kids) != 2 {
		return "", "", false
	}
	var p, r *string
	for _, c := range f.n.kids {
		if c.op != opCmp || c.cmp != "eq" {
			return "", "", false
		}
		switch c.prop {
		case PartitionKey:
			p = &c.val.str
		case RowKey:
			r = &c.val.str
		}
	}
	if p == nil || r == nil {
		return "", "", false
	}
	return *p, *r, true
}
