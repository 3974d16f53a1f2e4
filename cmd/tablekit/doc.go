// Command tablekit works with Azure Table Storage from the command line:
// list, create and drop tables, read, query, write and delete single
// entities, count and delete entities with parallel keys-only scans,
// export, import and copy entities resumably, over many machines with a
// plan of shares, verify that two tables (or a table and a file) hold the
// same, issue table and account SAS URLs and manage stored access policies.
//
//	go install github.com/tablekit/tablekit/cmd/tablekit@latest
//	export TABLEKIT_CONNECTION_STRING='DefaultEndpointsProtocol=https;AccountName=...;AccountKey=...'
//	tablekit tables --prefix logs
//	tablekit create orders
//	tablekit count orders --partition alice
//	tablekit get orders alice 0001
//	tablekit query orders --filter "PartitionKey eq 'alice'" --format table
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
// ServerBusy). The exit status is 0 only when everything asked was done;
// otherwise:
//
//	1    a failure, or any reject
//	2    a bad command line: nothing was sent or written (drop and delete
//	     refuse to run without --yes, delete also without --filter,
//	     --partition or --prefix; a plan that does not fit the command,
//	     --segment i/n without --plan, or env:VAR/n without $VAR; a bad
//	     line or NAME=VALUE argument of put; a --marker query cannot go
//	     on from)
//	3    not found: the entity (get, rm, put --if-match), the table, or
//	     the stored access policy (policy rm)
//	4    precondition failed: --if-match names an ETag the entity no
//	     longer has (someone changed it since it was read), or put
//	     --if-not-exists found an entity with the same keys
//	5    the outcome is unknown: a write's reply was lost and it may or may
//	     not be stored (read it back with get)
//	6    verify found differences
//	130  interrupted (Ctrl-C)
//
// # Entities: get, query, put, rm
//
// get prints one entity as a JSON line: the service's JSON with its
// "odata.etag", every @odata.type annotation JSON would otherwise lose, and
// Timestamp; get --select a,b reads only those properties (the keys and
// Timestamp always come, and the ETag). query prints what --filter (OData)
// matches, at most --top (default 1000, 0 for all) in key order, with
// --select's properties only: --format jsonl (get's lines, the default),
// table (aligned columns for a terminal; values longer than 60
// characters are cut with "…" and control characters escaped) or csv
// (Storage Explorer's layout).
//
// table and csv print any number of rows as they come, 1,000 at a time.
// table prints a header over the first rows, and a blank line and a new
// header whenever later rows need another column (a property first seen
// then, added at the right) or a wider one. csv has one header, made of
// --select's properties or else of those the first 1,000 rows hold; a
// property first seen after them stops the output with exit status 1
// and an error naming it (the rows before it are printed whole): give
// --select with every column, or use export, which reads the table twice
// to find every column. No value is ever left out silently.
//
// When --top stops a query that may have more, its last line on stderr
// is "go on with --marker M": query --marker M, with the same table,
// --filter and --select, prints the entities after the last one printed
// (a marker is the query package's resumable token; any --top and
// --format may follow it). A query cut short by a failed request or
// Ctrl-C prints the same line before its error. A malformed marker, or one of another query, is exit
// status 2 before any request. The line means "may": when the service
// said there was more and nothing is left, the next run prints nothing.
//
//	tablekit get orders alice 0001 > e.jsonl
//	tablekit put orders e.jsonl --if-match "$(jq -r '."odata.etag"' e.jsonl)"
//	tablekit rm orders alice 0001
//	tablekit query orders --top 50 --format table      # ... go on with --marker M
//	tablekit query orders --top 50 --format table --marker M
//
// put writes JSON lines (a file, or standard input) one request per
// entity: replace (insert or replace) by default, insert or merge with
// --merge. It reads and checks every line (up to 1,000; import is the
// command for more) before it writes any, so a bad line writes nothing.
// With --if-match ETAG it updates only the stored entity with that ETag
// (* for any existing one), and rm --if-match deletes only that version;
// without, rm deletes whatever is stored. With --if-not-exists it only
// inserts: an entity with the same keys is left as it is, exit status 4
// (az's --if-exists fail). Each entity written is printed with its new
// ETag. A conditional write retried after a lost reply that then finds
// another ETag, or an insert whose retry finds the entity, may have met
// the first attempt's own write: exit status 5, not 4. A delete whose
// retry finds the entity gone has done what was asked (status 0).
//
// Instead of a file, put takes one entity as NAME=VALUE arguments (any
// argument with "=" makes them all so; a file whose name has one is read
// from standard input). A value is a string unless NAME@odata.type=Edm.X
// types it (Edm.String, Int32, Int64, Double, Boolean, DateTime, Guid or
// Binary; the "Edm." may be left out), as az storage entity does: a value
// is never typed by its look, so Age=42 is the string "42". DateTime is
// RFC 3339 (2024-05-01T10:00:00Z), Binary base64, Double also NaN,
// Infinity and -Infinity. PartitionKey and RowKey are required and are
// strings; Timestamp is the service's. A name given twice, a type for no
// value, an unknown type, a value not of its type or a name the service
// refuses is exit status 2, before any request.
//
//	tablekit put orders PartitionKey=alice RowKey=0002 Total=12.5 Total@odata.type=Edm.Double Note='gift wrap'
//	tablekit put orders PartitionKey=alice RowKey=0003 Qty=2 Qty@odata.type=Edm.Int32 --if-not-exists
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
// another command, table, filter, share, plan or --parallel is refused. delete
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
// # Splitting a table over n machines: plan, --plan and --segment i/n
//
// tablekit plan cuts a table into n shares by its own keys, once; every
// machine is given the file and reads its share:
//
//	tablekit plan events --shares 3 -o events.plan
//	machine 1: tablekit export events -o events-1.jsonl --plan events.plan --segment 1/3 --checkpoint e1.ckpt
//	machine 2: tablekit export events -o events-2.jsonl --plan events.plan --segment 2/3 --checkpoint e2.ckpt
//	machine 3: tablekit export events -o events-3.jsonl --plan events.plan --segment 3/3 --checkpoint e3.ckpt
//
// The plan reads pages of keys where the keys are (keys-only queries: 1
// when the keys fit in a page, else about 30 to 130, which it reports):
// their common prefix, their end, pages spread over them, then more where
// its count is least sure. Shares come out within a few tens of percent of
// one another for keys such as p00..p99, customer-000001.., GUIDs, ISO
// dates and reverse ticks; a partition is never split, so a table of few
// partitions gives uneven or empty shares (--partition cuts one
// partition's RowKeys). The plan's --partition and --prefix, its table and
// its number of shares must be the ones of the command that reads it.
//
// The shares are ranges of keys between the plan's bounds: every key that
// can exist falls in exactly one, so the machines together read the table
// exactly once, also when it is written meanwhile. An entity stored
// throughout a run is read once, in its share; one written or deleted
// during the run is read at most once. Machines that each probed a table
// being written could cut it in different places, leaving keys to no
// share or to two: that is why --segment i/n (n > 1) needs --plan.
//
// A Kubernetes Indexed Job numbers its pods from 0 in JOB_COMPLETION_INDEX;
// --segment env:JOB_COMPLETION_INDEX/n reads it and takes share index+1,
// so every pod runs the same command line (deploy/k8s in the repository
// has the manifest of an export and a copy, and how to collect the files).
//
// # Within a share: --parallel
//
// Each machine splits its share again, into up to 4 segments per request
// in flight, where its keys are: the same splitter as plan, with fewer
// keys-only queries (about 12, most of them for a single key or 100; none
// with --parallel 1). The
// queries see --partition, --prefix and the share, not --filter: they are
// key seeks, cheap on the service. The bounds are saved in the checkpoint,
// and a resumed run scans the same segments without reading the keys
// again, even if the table changed meanwhile.
//
// # Throughput: --rate
//
// count, delete, export, copy, verify and import take --rate N: the run's
// requests keep N entities a second per account (a transaction counts its
// operations, a query page the entities it returned; writes to one
// partition at most 2,000 a second, the service's partition target), and
// less while the service throttles, all requests backing off together
// (table.Options.Rate). Without --rate (0) there is no cap, and the same
// backing off starts at the first throttled answer; --rate -1 turns it
// off. The progress line shows the rate ("limited to N/s") and the
// throttled answers.
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
// export --ordered writes the entities in key order (PartitionKey, then
// RowKey), so that two exports of a table diff: --parallel's segments are
// merged in key order, which holds a page of each (one segment per request
// in flight) and reads ahead; it is slower than an unordered export of a
// large table. --limit N stops after N entities (per share with
// --segment): with --ordered the first N in key order, without it any N. A
// CSV export's first pass still reads the whole scan for its columns.
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
// # SAS and stored access policies
//
//	tablekit sas orders --permissions r --expiry 1h --partition alice
//	tablekit sas orders --start-pk a --end-pk m --ip 203.0.113.0-203.0.113.255 --start 2030-01-01T00:00:00Z --expiry 24h
//	tablekit policy set orders readers --permissions r --start 0s --expiry 720h
//	tablekit sas orders --policy readers
//	tablekit policy rm orders readers
//	tablekit sas --account --permissions rl --resource-types sco --expiry 1h
//
// sas signs what package sas signs: --permissions, --start and --expiry
// (a duration from now or an RFC 3339 time; the start defaults to 15
// minutes ago, for clock skew), a PartitionKey and RowKey range
// (--partition for one partition, or --start-pk, --start-rk, --end-pk,
// --end-rk, inclusive), --ip (an IPv4 address or a range A-B), a stored
// access policy by name (--policy: the token takes from it what the flags
// do not give, and stops working when it is removed), or --account, an
// account SAS for the table service (--permissions from rwdlacu,
// --resource-types from sco). https only, except for an http endpoint (the
// emulator). A value the service would refuse is exit status 2, before
// signing. policy list, set and rm read and change a table's stored access
// policies (at most 5; set replaces one of the same ID, rm of a missing
// one is status 3); Cosmos DB for Table has none, and says so (status 1).
//
// # Verify: how a migration ends
//
//	tablekit verify orders orders2 --parallel 16
//	tablekit verify orders orders --to-connection-string '...' --checkpoint v.ckpt
//	tablekit verify orders orders.jsonl
//
// verify compares a table with another (in the same account, or the one of
// --to-connection-string or TABLEKIT_TARGET_CONNECTION_STRING) or with an
// export file (a DST holding a / or a . is a file, JSON Lines or CSV as
// for import), property by property with their EDM types, ignoring
// Timestamp and ETag: an Int32 against an Int64 is a difference, NaN
// equals NaN. It prints the counts of both sides, the keys missing from the
// target, the extra ones, the entities changed (and how many of those have
// a property of another type), then the first --show (default 10)
// differences by key, and exits 0 only when the two are equal, 6 when
// they differ.
//
// The source's share is split into segments where its keys are, as for
// any scan, and up to --parallel segments are compared at once: the
// service returns each segment of both tables in key order, so the two
// scans of a segment are merged by key, a page read ahead on each side;
// memory holds at most two pages per side of a segment in flight, not a
// table.
// Properties that are the same JSON on both sides are equal without being
// decoded. A file is sorted first, in runs of up to 100,000 entities
// sorted in memory and merged from temporary files (a key it holds twice
// keeps its last line, as import does), and compared with one ordered
// parallel scan of the table (as export --ordered reads). With
// --checkpoint the last key compared in each segment and the counts so
// far are saved together; the same command resumes after those keys.
// --partition, --prefix, --plan with --segment and --filter select on both
// tables the same way (a file is filtered by keys; --filter, which only
// the service evaluates, is refused with a file). Cosmos DB for Table
// returns no key order: a side read there is sorted like a file (in runs
// of 100,000 entities or 64 MiB shared by the sorts at once) before the
// merge, and a file is compared with the table's sorted scan.
//
// # Internals
//
// exitcode.go maps errors to exit statuses (the one place), entity.go is
// get, put and rm, querycmd.go is query and its streaming table and csv;
// sas.go signs, policy.go holds every stored access policy call;
// verify.go runs verify (segments side by side, or a table and a file),
// verifymerge.go merges two key-ordered streams, verifyside.go reads a
// table's side in key order (sorted on Cosmos DB), entitydiff.go compares
// two entities, verifyfile.go reads a file's entities sorted, and
// spillsort.go is the sort in bounded memory both use.
// format.go picks a file's format and checks an input's first line,
// csvformat.go converts Storage Explorer's CSV to neutral rows, csvread.go
// is its RFC 4180 reader, double.go the text of NaN and the infinities,
// entitytext.go turns rows and JSON lines into entities, roundwrite.go
// writes rounds and sorts out rejects, addexisting.go settles adds that
// find their entity stored, output.go keeps an output file's length for
// resumes. filtercheck.go checks --filter's literals. job.go is the
// checkpointed run every moving or reading command shares (checkpoint,
// progress, resume or complete, the reader and writer side by side);
// scan.go plans a scan (scope, share, segments) and runs any projection of
// it; share.go reads --segment and plan files, plan.go writes them. copy's
// target comes from targetFlags (--to-connection-string or
// TABLEKIT_TARGET_CONNECTION_STRING, else the source account).
package main
