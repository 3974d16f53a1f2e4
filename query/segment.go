package query

import (
	"strings"

	"github.com/tablekit/tablekit/internal/errmap"
	"github.com/tablekit/tablekit/table"
)

// Segment is one part of a query run in parallel: its Filter is And-ed with
// the query's filter. Segments of one run must not overlap, or entities in
// both are returned twice; build Segment values directly for your own split.
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

// RangeSegments splits the PartitionKey space at strictly increasing
// bounds: n bounds make n+1 segments that cover every partition exactly
// once. Choose bounds that split keys evenly, or let Query.Split find them.
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

// ShardSegments makes one segment per shard prefix of table.ShardPrefixes,
// for tables whose PartitionKey starts with table.Shard(key, shards).
func ShardSegments(shards int) []Segment {
	return PrefixSegments(table.ShardPrefixes(shards)...)
}
