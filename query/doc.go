// Package query reads typed entities from Azure Table Storage (and Cosmos
// DB for Table) beyond a single point get: injection-safe filters, server-side projection, paging
// with an opaque, resumable continuation token, and one query split into
// segments that run with bounded parallelism.
//
// It builds on package table: a [Query] runs over a *table.Table[T] and
// yields T values decoded by the table's codec, with the table's error
// sentinels. A [Query] holds a filter, an optional projection, a page size
// and an optional limit; errors in its parts (an invalid filter, a page size
// out of range) are kept and reported when it runs, and nothing panics.
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
// your entity.) A [Value] is immutable; an invalid one (a NaN, a string
// that is not UTF-8) carries its error into every filter made with it.
// [String] writes every character other than the single quote as it is;
// control characters are allowed (property values may hold them; keys
// cannot, so a key compared with one simply matches nothing). [DateTime]
// writes t at 100 ns; Azurite compares DateTime values at millisecond
// precision only, the service at 100 ns.
//
// [And], [Or] and [Not] combine filters with the parentheses their meaning
// needs; combining filters never changes them, since a [Filter] is an
// immutable value. [Or] across partition keys is evaluated by the service
// as a table scan: prefer parallel segments for "these partitions".
// [Property.HasPrefix] writes a prefix as the key range the service can
// seek on, p ge 'prefix' and p lt 'next', where next is the smallest string
// greater than every string with the prefix (its last character
// incremented, in the UTF-16 order the service and Azurite compare in); a
// prefix that has no such string (it ends in U+FFFF only, or is empty)
// gives the open range p ge 'prefix'. On PartitionKey this is a range
// query, on RowKey within one partition a range within the partition.
//
// A [Property] other than PartitionKey, RowKey and Timestamp must be an
// identifier (letters, digits and _, not starting with a digit, at most
// 255 characters) and not an OData keyword such as "and"; names are
// checked for this and, over a typed table, against T: a filter or a
// [Query.Select] naming a property T does not map is an error before any
// request, as is a literal of another type than T's field
// ([Query.AnyTypes] allows both in a filter, for tables of mixed rows;
// table.Entity and table.RawEntity take any valid name).
//
// No value is ever concatenated into a filter unescaped: a value cannot
// close its literal or add a condition, whatever it holds ("' or 1 eq 1 or
// '", quotes, parentheses, unicode, control characters). [Raw] is the one
// explicit way to write OData text yourself; it must never contain user
// input. To keep composition safe, Raw checks that quotes are closed and
// parentheses balanced, so that "(raw) and (...)" keeps its meaning; it does
// not check property names or types.
//
// A filter made from invalid parts keeps its first error, reported by
// [Filter.Build] and by the query that runs it; nothing panics. The service
// allows at most 15 comparisons per filter ([MaxComparisons]); longer
// filters are refused before they are sent.
//
// # Scopes: point, partition, range, table scan
//
// The cost of a query is set by what its filter fixes about the keys, which
// [Filter.Scope] and [Query.Scope] report. A [Scope] is read from the
// filter's shape (comparisons on PartitionKey and RowKey joined by and), the
// way the service's query planner reads it:
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
//     it is slow, and it gets slower as the table grows: split it into
//     parallel segments or redesign the keys.
//
// Log the scope, or mark a query [Query.NoTableScan] so that it refuses to
// run as a table scan ([tablekit.ErrInvalid]) instead of silently becoming one.
// For a large read, run it as parallel segments (below).
//
// # Paging and resumable tokens
//
// Table Storage returns at most 1,000 entities per response and stops a
// response at a partition boundary or after 5 seconds of work, so pages can
// be short, or even empty, while a continuation says there is more; a
// filter that matches nothing in a stretch of the table gives empty pages
// ([Page].Entities) that still carry a continuation.
// [Query.All] and [Cursor.All] follow continuation, across short and empty
// pages, to the end (or to [Query.Limit]) and stop fetching when the loop
// breaks: no request is made after the one that produced the current
// entity. An error is yielded once, with the zero T, and ends the
// iteration; the cursor's position stays at the last entity returned, so a
// later All retries from there. [Cursor.Pages] yields each page as the
// service sent it, empty ones included (entities already returned before a
// mid-page token are left out); [Query.Limit] cuts its last request, not a
// page. [Query.PageSize] sets $top per request (1 to 1,000 on Table Storage;
// Cosmos DB documents no maximum): small pages mean more round trips, and
// the service may return fewer than asked (and even none) while there is
// more. [Query.Limit] caps the total, and the last request asks only for
// what is still needed. [Query.Select] projects on the server, which saves
// bandwidth and decoding; the keys are always included (positions and
// continuation need them).
//
// A continuation is followed only when it moves forward: on Table Storage
// it must name a key past the page's last entity, not before the request's
// own, and within the query's key range; a page whose continuation does not
// is read again, then the query fails with [tablekit.ErrUnavailable], never
// repeating an entity or ending early on a continuation it can check
// (docs/queries.md says what Cosmos DB allows to check).
//
// A [Cursor]'s methods may be called from any goroutine, but iterate it from
// one at a time; after a break or an error it continues where it stopped.
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
// table.Shard, for keys spread over shards: the whole table, or with a
// filter on the rest of the key a slice of every shard, read shard by
// shard); segments must not overlap, which these constructors check. Build
// [Segment] values directly for your own split, such as RowKey ranges within
// one large partition.
//
// n bounds given to [RangeSegments] make the segments PartitionKey lt b1,
// b1 <= PartitionKey < b2, ..., PartitionKey ge bn. Choose bounds that split
// your keys evenly (for zero-padded numeric keys, evenly spaced numbers).
// [DefaultParallelism] is enough that round trips overlap and latency stops
// dominating (8 requests of 20 ms take about as long as one).
//
// When you do not know where the keys are, [Query.Split] reads them and
// cuts the key range the query's filter fixes (a partition, bounds, a
// prefix) into parts of about equal size: its
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
// not return keys in order, so there the parts' sizes are guesses. After
// its own checks Split returns the service's errors. [SplitOptions].Requests
// sets how many keys-only queries it may make when the keys do not fit in
// one; under 40, Split spreads its reads evenly and does not look where its
// counts are least sure, which suits the segments of one process.
//
// [ParallelCursor.All] streams entities as pages arrive, a page at a time,
// the page that arrived last first: a caller slower than the reads (one
// that writes each entity out) then reads entities decoded moments before,
// still in the processor's cache, not ones decoded a read-ahead earlier. With
// [ParallelOptions].Ordered it merges the segments in (PartitionKey,
// RowKey) order instead: each segment's results are in that order, so a
// k-way merge of segments that do not overlap is exact (overlapping ones
// would repeat entities in either mode), but it must see every unfinished
// segment's next entity before it hands one out: it holds a page per
// segment, and a slow segment delays all of them. With key-range segments
// the merge drains them one after the other while the others read ahead
// within the run's budget. Use the default, unordered, when order does not
// matter. On a backend without key order (Cosmos DB, and a table from
// table.Wrap, whose backend tablekit cannot see) Ordered is
// tablekit.ErrUnsupported. The first error is yielded once and
// cancels every request in flight; breaking out of the loop does the same;
// either way no goroutine outlives the loop. Each segment keeps its own
// position, which advances only with the entities handed out, and
// [ParallelCursor.Token] encodes all of them, so an interrupted run resumes
// every segment where it stopped ([Query.ResumeParallel], as [Query.Resume]
// resumes a [Cursor]); entities fetched but not yet handed out are fetched
// again on resume.
//
// Parallel requests need parallel connections. tablekit's transport keeps
// table.Options.PoolSize idle connections per host (default 64,
// table.DefaultPoolSize); [MaxParallelism] is at most that, so that every
// request finds a pooled connection instead of opening and closing one
// (connection churn). Go's default transport keeps 2, and any parallelism
// above that opens and closes connections all the time. If you lower
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
