// Command tablekit works with Azure Table Storage from the command line:
// list, create and drop tables, count and delete entities with parallel
// keys-only scans, export, import and copy entities resumably, and issue
// table SAS URLs.
//
//	go install github.com/tablekit/tablekit/cmd/tablekit@latest
//	export TABLEKIT_CONNECTION_STRING='DefaultEndpointsProtocol=https;AccountName=...;AccountKey=...'
//	tablekit tables --prefix logs
//	tablekit create orders
//	tablekit count orders --partition alice
//	tablekit delete logs --filter "Timestamp lt datetime'2024-01-01T00:00:00Z'" --yes --checkpoint logs.ckpt
//	tablekit sas orders --permissions r --expiry 1h --partition alice
//	tablekit drop orders --yes
//
// Every command has --help with an example.
//
// # Connecting
//
// --connection-string (or TABLEKIT_CONNECTION_STRING) takes every form
// table.NewService does: the portal's, a SAS connection string, Cosmos DB's
// TableEndpoint form, UseDevelopmentStorage=true. Or --account-url with a
// SAS (in the URL or --sas), or alone, with Microsoft Entra ID through
// azidentity's DefaultAzureCredential: environment, managed identity, or
// the Azure CLI's az login. sas needs the account key, so a connection
// string with AccountKey. Keys and SAS signatures are never printed, except
// the URL that sas is asked to print on stdout.
//
// # Output and exit status
//
// Results (table names, the count, the SAS URL) go to stdout; progress and
// the final summary (entities, bytes where known, seconds, rate, retries
// and how many of them followed throttling, rejects) go to stderr: a live
// display on a terminal, a line every 10 seconds otherwise; both say when
// the service throttled the run (Cosmos DB's 429, Table Storage's 503
// ServerBusy). The exit status is 0 only when everything asked was
// done, 1 after a failure or any reject, 2 for a bad command line (nothing
// was sent; drop and delete refuse to run without --yes, delete also without
// --filter, --partition or --prefix), and 130 after Ctrl-C.
//
// # Scans: count and delete
//
// count and delete read only the keys, as one query split into parallel
// segments (--parallel requests in flight, default 8). Every command that
// reads a table (count, delete, export, copy) takes --partition (one
// PartitionKey) and --prefix (PartitionKeys starting with it; RowKeys with
// --partition), which the service seeks on, and --filter, OData text
// And-ed with them and the segment.
//
// The service compares a property only with a literal of its own EDM type:
// against an Int64 property, N lt 10 matches nothing (10L would), so a
// delete with it would delete nothing and say so only by its count. Before
// any of them acts, each command reads a few entities of its scope (one
// request of up to 100, only the properties --filter names) and stops with
// exit status 2, naming both types and the literal to write, when a
// literal's type is not one its property has there; PartitionKey, RowKey
// (strings) and Timestamp (a DateTime) need no read. --check-filter=false
// skips the check, for a property that holds several types.
//
// delete is the design guide's high-volume delete: keys in rounds of
// 2,000, deleted with unconditional deletes in entity group transactions
// (batch.Write). To empty a whole table, drop it instead: one request.
//
// With --checkpoint FILE the scan's position is saved every few seconds and
// on Ctrl-C (written to a temporary file, synced, renamed: never torn).
// Running the same command with the same file resumes; a checkpoint of
// another command, table, filter, segment or --parallel is refused. delete
// saves only positions whose deletes all committed, so resuming never skips
// an entity.
//
// Cosmos DB for Table returns query results in no key order, so a position
// in the middle of a page is the number of its entities already done (and
// a digest of their keys): the resumed run reads that page again and goes
// on only if it starts with the same entities; otherwise it stops, says
// that the checkpoint cannot be resumed exactly, and that deleting the file
// starts again. delete keeps no position there (deleting what it read
// changes the pages): a resumed delete scans again from the start, where
// only what is left is found.
//
// # Splitting a table over n machines: --segment i/n
//
// --segment i/n (1 <= i <= n) takes share i of n of the key space. The
// shares are PartitionKey ranges (RowKey ranges with --partition) cut at
// fixed bounds of the first three key characters, so they depend only on i,
// n and --key-chars, never on the data: the n shares cover every possible
// key exactly once, and together the machines read the table once.
//
//	machine 1: tablekit delete events --filter "Level eq 'debug'" --yes --segment 1/3 --checkpoint d1.ckpt
//	machine 2: tablekit delete events --filter "Level eq 'debug'" --yes --segment 2/3 --checkpoint d2.ckpt
//	machine 3: tablekit delete events --filter "Level eq 'debug'" --yes --segment 3/3 --checkpoint d3.ckpt
//
// Give every machine the same n, --filter and --key-chars. --key-chars
// only balances the shares: name the characters your keys start with
// (alnum, the default; hex for GUIDs and hashes; digits; printable; or the
// characters themselves). Keys outside the set are still covered exactly
// once, in whichever share their range falls. Keys that all begin alike
// ("customer-0001", "2024-05-...") land in one share: split such a table
// over machines with --filter ranges of your own, or by --partition.
//
// # Within a share: --parallel
//
// Each machine splits its share again, into up to 4 segments per request
// in flight, and this split follows the data: before the scan, a dozen or
// so keys-only probes ($top=1 queries, a few at a time) find the share's
// first key, the prefix all its keys have in common and which ranges after
// it hold keys, and the segment bounds go between those. So "p00".."p49"
// becomes 50 segments and a table with one partition (or --partition) is
// split by RowKey. The probes see --partition and --prefix but not
// --filter: they are key seeks, cheap on the service. Whatever they find,
// the segments tile the share exactly. The bounds are saved in the
// checkpoint, and a resumed run scans the same segments without probing
// again, even if the table changed meanwhile.
//
// # Export, import and copy
//
//	tablekit export orders -o orders.jsonl --parallel 16 --checkpoint exp.ckpt
//	tablekit import orders2 orders.jsonl --create --checkpoint imp.ckpt --rejects bad.jsonl
//	tablekit copy orders orders2 --to-connection-string '...' --checkpoint copy.ckpt
//
// The format follows the file's extension unless --format says otherwise:
// .csv and .tsv (tab-delimited) are CSV, .jsonl and .json JSON Lines, and
// anything else (standard input and output too) JSON Lines. JSON Lines is
// the service's own JSON, one entity a line, annotated with @odata.type
// wherever JSON would lose the type; export adds Timestamp, import ignores
// it. CSV is Storage Explorer's layout (Name and Name@type columns);
// import also takes files without @type columns (all strings), types on
// the first row only, TRUE and FALSE, a BOM, and any one-character
// --delimiter. Quoted fields keep every byte, CR LF and lone CRs included,
// and export quotes every field that needs it. An export to CSV reads the
// table twice without --select, since the header needs every column first
// and a read-ahead would miss rare ones; its first pass is checkpointed
// too. A double that is NaN or infinite is written NaN, Infinity or
// -Infinity (as Microsoft's SDKs write it: in JSON Lines, a string with
// the Edm.Double annotation); CSV import also reads INF and -INF.
//
// import reads the first line before it creates the table or writes
// anything: one that is not in the format chosen (a CSV file named .jsonl,
// a JSON array) stops it with one message and exit status 2.
//
// import --mode is upsert (the default: insert or replace), merge (insert
// or merge), add or add-missing. add refuses an entity that is already
// stored: it is a reject, with its line and the reason, and the rest of
// its transaction is written all the same (the service refuses a whole
// transaction for one existing entity; one read of the transaction's
// RowKey range finds which of its entities exist, and the transaction is
// sent again without them). add-missing is the restore of what is
// missing: existing entities are left as they are and counted, not
// rejected, and the exit status is 0.
//
// Export, import and copy resume exactly once with --checkpoint, even
// after kill -9: export saves the output's synced length with the token
// and truncates to it on resume; import saves the next input line once
// every earlier line committed; copy the scan token once every entity
// before it committed. Rounds of 5,000 entities (or 16 MiB) are written
// one after the other with batch.Write, which packs each round's
// partitions into full transactions: memory does not grow with the table.
// Replayed upserts and merges are idempotent; an add that finds its entity
// with the same properties counts as done when it may have written it
// itself: in a resumed run, or after a lost reply (its transaction is
// then read back, never assumed committed). A bad line is reported with
// its line number, written to --rejects, and skipped; the exit status is
// then 1, and the same command again with the checkpoint of the completed
// run does nothing more and says the same. --checkpoint-every sets how
// often to save.
//
// # Internals
//
// format.go picks a file's format and checks an input's first line,
// csvformat.go converts Storage Explorer's CSV to neutral rows, csvread.go
// is its RFC 4180 reader, double.go the text of NaN and the infinities,
// entitytext.go turns rows and JSON lines into entities, roundwrite.go
// writes rounds and sorts out rejects, addexisting.go settles adds that
// find their entity stored, output.go keeps an output file's length for
// resumes. filtercheck.go checks --filter's literals; openScan runs any
// projection of a plan; copy's target comes from targetFlags
// (--to-connection-string or TABLEKIT_TARGET_CONNECTION_STRING, else the
// source account).
package main
