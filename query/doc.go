// Package query reads typed entities from Azure Table Storage (and Cosmos
// DB for Table) beyond a single point get: injection-safe filters, server-side projection, paging
// with an opaque, resumable continuation token, and one query split into
// segments that run with bounded parallelism.
//
// It builds on package table: a [Query] runs over a *table.Table[T] and
// yields T values decoded by the table's codec, with the table's error
// sentinels.
//
//	q := query.New(orders).
//		Where(query.And(query.Partition("alice"), query.Property("Total").Gt(query.Double(100)))).
//		Select("Total", "Placed")
//	for o, err := range q.All(ctx) {
//		if err != nil {
//			return err
//		}
//		fmt.Println(o.RowKey, o.Total)
//	}
//
// # Filters and injection safety
//
// A [Filter] is built from typed parts only. A [Property] is compared with a
// [Value] made by a literal constructor, one per EDM type, and each writes
// the form the service requires:
//
//	query.String("O'Brien")          'O''Brien'
//	query.Bool(true)                 true
//	query.Int32(42)                  42
//	query.Int64(42)                  42L
//	query.Double(1)                  1.0
//	query.DateTime(t)                datetime'2024-01-02T03:04:05.1234567Z'
//	query.GUID(g)                    guid'0f8fad5b-d9cb-469f-a165-70867728950e'
//	query.Binary([]byte{0x0a, 0xff}) X'0aff'
//
// The service compares a property only with a literal of its own type: an
// Int64 property never equals 42, only 42L, and a Double never equals 1, only
// 1.0. Tables hold NaN and infinite Doubles, but no literal selects them
// dependably: Double refuses them with tablekit.ErrInvalid and names what to
// write instead (Gt(Double(math.MaxFloat64)) selects +Inf). (Azurite is more lenient with some untyped literals; the service is
// not, so choose the constructor that matches the property's Go type in
// your entity.) [And], [Or] and [Not] combine filters with the parentheses
// their meaning needs; [Property.HasPrefix] writes a prefix as the key range
// the service can seek on. Property names are checked (identifiers, not
// OData keywords) and, over a typed table, against T: a filter or a
// [Query.Select] naming a property T does not map is an error before any
// request, as is a literal of another type than T's field
// ([Query.AnyTypes] allows both in a filter, for tables of mixed rows;
// table.Entity and table.RawEntity take any valid name).
//
// No value is ever concatenated into a filter unescaped: a value cannot
// close its literal or add a condition, whatever it holds ("' or 1 eq 1 or
// '", quotes, parentheses, unicode, control characters). [Raw] is the one
// explicit way to write OData text yourself; it must never contain user
// input.
//
// A filter made from invalid parts keeps its first error, reported by
// [Filter.Build] and by the query that runs it; nothing panics. The service
// allows at most 15 comparisons per filter ([MaxComparisons]); longer
// filters are refused before they are sent.
//
// # Scopes: point, partition, range, table scan
//
// The cost of a query is set by what its filter fixes about the keys, which
// [Filter.Scope] and [Query.Scope] report:
//
//   - [ScopePoint]: PartitionKey and RowKey fixed. One entity, the cheapest
//     read. A query whose filter is exactly [Point] runs as a GET by key
//     (table.Get), not as a query.
//   - [ScopePartition]: PartitionKey fixed. The service reads one partition,
//     seeking on RowKey bounds. The normal shape of a query.
//   - [ScopeRange]: PartitionKey bounded but not fixed. The service reads the
//     partitions in the range, one partition server after another.
//   - [ScopeTableScan]: no usable PartitionKey condition, including or
//     across partitions, not, and Raw text. The service reads every
//     partition. Fine for small tables and offline jobs; in a request path
//     it is slow, and it gets slower as the table grows.
//
// Log the scope, or mark a query [Query.NoTableScan] so that it refuses to
// run as a table scan ([tablekit.ErrInvalid]) instead of silently becoming one.
// For a large read, run it as parallel segments (below).
//
// # Paging and resumable tokens
//
// Table Storage returns at most 1,000 entities per response and stops a
// response at a partition boundary or after 5 seconds of work, so pages can
// be short, or even empty, while a continuation says there is more.
// [Query.All] and [Cursor.All] follow continuation to the end (or to
// [Query.Limit]) and stop fetching when the loop breaks; [Cursor.Pages]
// yields each page as the service sent it, empty ones included. [Query.PageSize]
// sets $top per request (1 to 1,000 on Table Storage; Cosmos DB documents no
// maximum); [Query.Limit] caps the total, and the last request asks only
// for what is still needed. [Query.Select] projects on the server; the keys
// are always included.
//
// [Query.Resume] returns a [Cursor], and [Cursor.Token] (or [Page].Token)
// is the position after the last entity handed out, as an opaque string. It
// is stable across processes and versions of the token format are checked;
// it is bound to the table, filter and projection of its query, so a token
// given to another query is [tablekit.ErrInvalid], not wrong data. Resuming
// returns exactly the entities not yet seen. A typical web handler:
//
//	c, err := query.New(orders).Where(query.Partition(customer)).Limit(50).Resume(req.PageToken)
//	if err != nil {
//		return err // tablekit.ErrInvalid: a bad request
//	}
//	items, err := query.Collect(c.All(ctx))
//	resp.Items, resp.NextPageToken = items, c.Token() // "" on the last page
//
// What a token holds and costs: at a page boundary (after a full page, or
// after a Limit, whose last request is cut to fit) it is the service's own
// continuation (NextPartitionKey, and NextRowKey if the service sent one),
// and resuming costs nothing extra. In the middle of a page (a break) it is
// the continuation that page was fetched with and what of the page was
// handed out: resuming fetches that page again and skips what was already
// returned, so it costs at most one page of extra transfer. How it skips
// depends on the table's backend:
//
//   - Table Storage returns entities in (PartitionKey, RowKey) order, so
//     the token holds the keys of the last entity handed out and skips by
//     key, which stays exact when entities are inserted or deleted between
//     the two runs.
//   - Cosmos DB for Table does not sort its results (nor can a table from
//     table.Wrap tell which backend it is on), so the token counts the
//     entities handed out of the page and keeps a digest of their keys:
//     the page read again must start with the same entities, which are
//     skipped. When it does not (the backend ordered it differently this
//     time, or entities were written or deleted there) the query stops with
//     tablekit.ErrPositionLost rather than skip or repeat an
//     entity; resume from a page boundary ([Cursor.Pages]' tokens) or start
//     again. A token that skips by key is refused there before any request.
//
// Such a count-skip token has version 2 of the format, so that an older
// reader refuses it; every other token keeps version 1. Tokens are
// base64url JSON, neither encrypted nor signed: they contain key values,
// and editing one can only move its position within the same query.
//
// # Parallel segments
//
// [Query.Parallel] runs one logical query as several segments, each the
// query And-ed with the segment's filter, with at most
// [ParallelOptions].Parallelism requests in flight ([DefaultParallelism]
// 8, [MaxParallelism] 64), through an errgroup with SetLimit. Segments come
// from [PartitionSegments] (a list of partitions), [RangeSegments] (key
// ranges), [PrefixSegments] or [ShardSegments] (the prefixes of
// table.Shard, for keys spread over shards); segments must not overlap,
// which these constructors check.
//
// When you do not know where the keys are, [Query.Split] reads them and
// cuts the query's key range into parts of about equal size: its
// [Split].Segments run them, and its bounds, plain strings, can be saved
// and given to other machines. Within one partition (PartitionKey eq) it
// cuts RowKeys; otherwise PartitionKeys, never splitting a partition, so
// a range of one partition is one part. Its keys-only queries (one for
// keys that fit in a page, at most about 130 by default) find the keys'
// common prefix and end, read pages spread over them, then more where the
// count is least sure; between pages a key's share of the key space stands
// for its share of the entities. For zero-padded numbers, GUIDs, dates,
// reverse ticks or p00..p99 the parts come within a few tens of percent of
// one another; balance is an estimate, coverage is not: the bounds always
// tile the range, also while the table changes. The rest of the filter
// does not narrow the reads, which are key seeks; Cosmos DB for Table does
// not return keys in order, so there the parts' sizes are guesses.
//
// [ParallelCursor.All] streams entities as pages arrive. With
// [ParallelOptions].Ordered it merges the segments in (PartitionKey,
// RowKey) order instead: each segment's results are in that order, so a
// k-way merge is exact, but it must see every unfinished segment's next
// entity before it hands one out. On a backend without key order (Cosmos
// DB) Ordered is tablekit.ErrUnsupported. The first error is yielded once and
// cancels every request in flight; breaking out of the loop does the same;
// either way no goroutine outlives the loop. Each segment keeps its own
// position, and [ParallelCursor.Token] encodes all of them, so an
// interrupted run resumes every segment where it stopped
// ([ParallelOptions].Resume).
//
// Parallel requests need parallel connections. tablekit's transport keeps
// table.Options.PoolSize idle connections per host (default 64, equal to
// MaxParallelism); Go's default transport keeps 2, and any parallelism above
// that opens and closes connections all the time. If you lower
// table.Options.PoolSize, keep ParallelOptions.Parallelism at or below
// it; with plain aztables clients wrapped by table.Wrap, pass
// table.ClientOptions to them.
//
// # Double literals
//
// NaN and the infinities make an invalid Value (tablekit.ErrInvalid, saying
// what to write instead), never a filter that silently matches the wrong
// rows. No comparison selects NaN: it equals nothing, itself included. The
// service's OData literals for the infinities, INF and -INF, are read by
// Azurite as property names, which matches every entity without the
// property; Gt(Double(math.MaxFloat64)) selects +Inf and
// Lt(Double(-math.MaxFloat64)) selects -Inf on both, since no finite double
// lies beyond them.
package query
