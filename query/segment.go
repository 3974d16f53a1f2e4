package query

import (
	"strings"

	"github.com/tablekit/tablekit/internal/errmap"
	"github.com/tablekit/tablekit/table"
)

// Segment is one part of a query run in parallel: its Filter is And-ed with
// the query's filter. Segments of one run must not overlap, or entities in
// both are returned twice; the constructors below make segments that do not
// (and report duplicates or overlaps as errors). For your own split, such as
// RowKey ranges within one large partition, build Segment values directly.
type Segment struct {
	Filter Filter
}

// PartitionSegments makes one segment per partition key: the run reads
// exactly these partitions, each a partition query. A duplicate key is an
// error.
func PartitionSegments(partitionKeys ...string) []Segment {
	out := make([]Segment, len(partitionKeys))
	seen := make(map[string]bool, len(partitionKeys))
	for i, pk := range partitionKeys {
		out[i].Filter = Partition(pk)
		if seen[pk] {
			out[i].Filter = errFilter(errmap.Invalidf("query", "filter", "partition key %q appears twice among the segments", pk))
		}
		seen[pk] = true
	}
	return out
}

// RangeSegments splits the PartitionKey space at the given bounds, which
// must increase strictly: n bounds make n+1 segments, PartitionKey lt b1,
// b1 <= PartitionKey < b2, ..., PartitionKey ge bn. Together they cover
// every partition exactly once. Choose bounds that split your keys evenly
// (for zero-padded numeric keys, evenly spaced numbers), or let Query.Split
// find them.
func RangeSegments(bounds ...string) []Segment {
	return Split{Property: PartitionKey, Bounds: bounds}.Segments()
}

// PrefixSegments makes one segment per PartitionKey prefix (a key range,
// see Property.HasPrefix). No prefix may be a prefix of another.
func PrefixSegments(prefixes ...string) []Segment {
	out := make([]Segment, len(prefixes))
	for i, p := range prefixes {
		out[i].Filter = PartitionKey.HasPrefix(p)
		for j := range i {
			if strings.HasPrefix(p, prefixes[j]) || strings.HasPrefix(prefixes[j], p) {
				out[i].Filter = errFilter(errmap.Invalidf("query", "filter", "segment prefixes %q and %q overlap", prefixes[j], p))
				break
			}
		}
	}
	return out
}

// ShardSegments makes one segment per shard prefix of table.ShardPrefixes:
// for tables whose PartitionKey starts with table.Shard(key, shards), the
// whole table (or, with a filter on the rest of the key, a slice of every
// shard) read shard by shard.
func ShardSegments(shards int) []Segment {
	return PrefixSegments(table.ShardPrefixes(shards)...)
}
