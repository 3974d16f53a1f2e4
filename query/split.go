package query

import (
	"context"
	"math"
	"slices"
	"sync/atomic"

	"github.com/tablekit/tablekit/internal/errmap"
	"github.com/tablekit/tablekit/internal/keyspace"
	"github.com/tablekit/tablekit/internal/wire"
	"github.com/tablekit/tablekit/table"
)

// Split is where Query.Split cuts a query's keys into parts, and what it
// found. Its Segments run the parts in parallel; its fields are plain
// values, so a split can be saved and given to other processes or machines.
type Split struct {
	// Property is what Bounds are values of: PartitionKey (the zero value
	// means it too), or RowKey when the query reads one partition.
	Property Property
	// Bounds increase strictly. Part 0 holds the keys below Bounds[0], part
	// i those from Bounds[i-1] up to Bounds[i], the last part the rest.
	Bounds []string
	// Estimates is the entities Split estimated in each part (none for one
	// part); Exact says it read every key, so that they are counts (at the
	// time it read them).
	Estimates []int64
	Exact     bool
	// Requests is the number of keys-only queries Split made.
	Requests int
}

// Segments returns one segment per part of s, in key order: they cover
// every key exactly once, whatever the keys are. Bounds that do not
// increase make an tablekit.ErrInvalid segment.
func (s Split) Segments() []Segment {
	prop := s.Property
	if prop == "" {
		prop = PartitionKey
	}
	out := make([]Segment, len(s.Bounds)+1)
	for i := range out {
		var lo, hi Filter
		if i > 0 {
			lo = prop.Ge(String(s.Bounds[i-1]))
		}
		if i < len(s.Bounds) {
			hi = prop.Lt(String(s.Bounds[i]))
		}
		out[i].Filter = And(lo, hi)
		if i > 0 && i < len(s.Bounds) && wire.CompareUTF16(s.Bounds[i-1], s.Bounds[i]) >= 0 {
			out[i].Filter = errFilter(errmap.Invalidf("query", "filter", "range bounds must increase: %q then %q", s.Bounds[i-1], s.Bounds[i]))
		}
	}
	return out
}

// SplitOptions tune Query.Split; nil means defaults. It is never modified.
type SplitOptions struct {
	// Requests is about how many keys-only queries Split may make (each reads
	// up to 1,000 keys): more find the keys' spread more exactly. 0 means 80
	// to 130, by parts.
	Requests int
}

// splitKey is the projection Split reads: the keys only.
type splitKey struct {
	PartitionKey string
	RowKey       string
}

// Split reads q's keys and returns where to cut q's key range into parts of
// about equal size; the parts tile the range. Parts outside 1..MaxSplitParts,
// or an invalid q, are tablekit.ErrInvalid before any request.
func (q Query[T]) Split(ctx context.Context, parts int, o *SplitOptions) (Split, error) {
	if err := q.check(); err != nil {
		return Split{}, err
	}
	if parts < 1 || parts > MaxSplitParts {
		return Split{}, errmap.Invalidf("query", "options", "split into %d parts, want 1 to %d", parts, MaxSplitParts)
	}
	if parts == 1 {
		return Split{Property: PartitionKey}, nil
	}
	kr := q.filter.keyRange()
	// The same table, read as splitKey.
	keys, err := table.As[splitKey](q.t)
	if err != nil {
		return Split{}, err
	}
	rd := &keyReader{base: New(keys).Select()}
	out := Split{Property: PartitionKey}
	r := kr.pk
	if kr.partition != nil {
		rd.partition, out.Property = kr.partition, RowKey
		r = kr.rk
	}
	var opts keyspace.Options
	if o != nil {
		opts.Reads = o.Requests
	}
	res, err := keyspace.Split(ctx, rd, r, out.Property == RowKey, parts, opts)
	out.Requests = int(rd.requests.Load())
	if err != nil {
		return out, err
	}
	out.Bounds, out.Exact = res.Bounds, res.Exact
	for _, e := range res.Estimates {
		out.Estimates = append(out.Estimates, int64(math.Round(e)))
	}
	return out, nil
}

// MaxSplitParts is the most parts Query.Split cuts a key range into: far
// more segments than a parallel run uses, or shares than machines.
const MaxSplitParts = 10000

// keyReader makes the splitter's reads: keys-only queries of one key range
// (of RowKeys within partition, when set).
type keyReader struct {
	base      Query[splitKey]
	partition *string
	requests  atomic.Int64
}

func (r *keyReader) Read(ctx context.Context, rg keyspace.Range, n int) ([]keyspace.Key, bool, error) {
	prop := PartitionKey
	var fs []Filter
	if r.partition != nil {
		prop = RowKey
		fs = append(fs, PartitionKey.Eq(String(*r.partition)))
	}
	switch {
	case rg.After:
		fs = append(fs, prop.Gt(String(rg.Lo)))
	case rg.Lo != "":
		fs = append(fs, prop.Ge(String(rg.Lo)))
	}
	if rg.HasHi {
		fs = append(fs, prop.Lt(String(rg.Hi)))
	}
	p, err := r.base.Where(And(fs...)).PageSize(n).compile(Filter{})
	if err != nil {
		return nil, false, err
	}
	// Follow the continuation over empty pages: the service sends them
	// where a stretch of the table holds nothing of the range.
	var pos position
	for {
		page, err := p.tracedFetch(ctx, pos, n, -1)
		r.requests.Add(1)
		if err != nil {
			return nil, false, err
		}
		if len(page.keys) > 0 || page.next.Done {
			// In key order, as Table Storage sends them; Cosmos DB for
			// Table does not promise it.
			keys := slices.Clone(page.keys)
			slices.SortFunc(keys, compareKeys)
			ks := make([]keyspace.Key, len(keys))
			for i, k := range keys {
				ks[i] = keyspace.Key{PK: k.pk, RK: k.rk}
			}
			return ks, !page.next.Done, nil
		}
		pos = page.next
	}
}

// keyRange is what a filter fixes of the keys: a partition, and ranges of
// PartitionKeys and RowKeys (open where it says nothing).
type keyRange struct {
	partition *string
	pk, rk    keyspace.Range
}

// keyRange reads the comparisons of the keys with strings that the
// filter's top-level and joins (ge, gt and lt bound a range, PartitionKey
// eq fixes the partition); anything else, such as or or le, leaves the
// range wider than the filter, which only costs the reads some keys.
func (f Filter) keyRange() keyRange {
	var kr keyRange
	var walk func(n *node)
	walk = func(n *node) {
		if n == nil {
			return
		}
		if n.op == opAnd {
			for _, k := range n.kids {
				walk(k)
			}
			return
		}
		if n.op != opCmp || n.val.kind != kindString {
			return
		}
		r := &kr.pk
		switch n.prop {
		case PartitionKey:
			if n.cmp == "eq" {
				v := n.val.str
				kr.partition = &v
				return
			}
		case RowKey:
			r = &kr.rk
		default:
			return
		}
		v := n.val.str
		switch n.cmp {
		case "ge", "gt":
			if c := wire.CompareUTF16(v, r.Lo); c > 0 || (c == 0 && n.cmp == "gt") {
				r.Lo, r.After = v, n.cmp == "gt"
			}
		case "lt":
			if !r.HasHi || wire.CompareUTF16(v, r.Hi) < 0 {
				r.Hi, r.HasHi = v, true
			}
		}
	}
	walk(f.n)
	return kr
}
