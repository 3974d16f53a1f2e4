// Package keyspace cuts a table's keys into parts: ranges of PartitionKeys
// (or of RowKeys within one partition) in the service's order (UTF-16 code
// units), and the splitter that finds, with keys-only reads, bounds that
// give each part about the same number of entities.
//
// The splitter cannot count a table (the service has no count): it reads
// pages of keys, at most a page per read, and estimates the stretches it
// did not read by how much of the key space they span. Its coordinate maps
// a key to [0, 1) digit by digit over the characters keys were seen to
// hold at each position (see coord), so that numbers, GUIDs, dates and
// reverse ticks spread evenly. Balance is an estimate; coverage is not:
// whatever the reads return, the bounds increase strictly inside the
// range, so the parts tile it and every key falls in exactly one.
//
// Package query turns parts into segments (query.Split) and runs them;
// the tablekit command gives them to machines as shares.
package keyspace
