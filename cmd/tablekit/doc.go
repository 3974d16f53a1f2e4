// Command tablekit works with Azure Table Storage from the command line:
// list, create and drop tables, read, query, write and delete single
// entities, count and delete entities with parallel keys-only scans,
// export, import and copy entities resumably, over many machines with a
// plan of shares, verify that two tables (or a table and a file) hold the
// same, describe a table's shape (schema), back tables up and restore
// them, issue table and account SAS URLs and manage stored access policies.
//
//	go install github.com/tablekit/tablekit/cmd/tablekit@latest
//	export TABLEKIT_CONNECTION_STRING='DefaultEndpointsProtocol=https;AccountName=...;AccountKey=...'
//	tablekit tables --prefix logs
//	tablekit create orders
//	tablekit count orders --partition alice
//	tablekit schema orders --sample 1000
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
// the final summary (entities, bytes where known: export's output and
// import's input as stored, seconds, rate, retries and how many of them
// followed throttling, rejects) go to stderr: a live display on a
// terminal, a line every 10 seconds otherwise; both say when the service
// throttled the run (Cosmos DB's 429, Table Storage's 503 ServerBusy).
// Messages say "tablekit NAME: " once and what went wrong, with control
// characters and bytes that are not UTF-8 escaped (a binary file's content
// cannot garble the terminal). The exit status is 0 only when everything
// asked was done; otherwise:
//
//	1    a failure, or any reject
//	2    a bad command line or input: nothing was sent or written (drop
//	     and delete refuse to run without --yes, delete also without
//	     --filter, --partition or --prefix; a plan that does not fit the
//	     command, --segment i/n without --plan, or env:VAR/n without $VAR;
//	     a bad line or NAME=VALUE argument of put; a --marker query cannot
//	     go on from; a --checkpoint of another job; a malformed connection
//	     string or SAS; a table name the service refuses; an input file
//	     that cannot be opened, is not in its format or is gzip not named
//	     .gz; an extension that names no format; an output that cannot be
//	     created). A --filter that names a property no entity of the
//	     sample has, or a literal of another type, is refused after that
//	     one read and before anything is written, deleted or printed;
//	     restore into a table that holds entities, without --mode, is
//	     refused after reading one key and before any write
//	3    not found: the entity (get, rm, put --if-match), the table, the
//	     stored access policy (policy rm), or the backup (restore, verify
//	     --at: none of that ID, none finished by that time, none at all)
//	4    precondition failed: --if-match names an ETag the entity no
//	     longer has (someone changed it since it was read), or put
//	     --if-not-exists found an entity with the same keys
//	5    the outcome is unknown: a write's reply was lost and it may or may
//	     not be stored (read it back with get)
//	6    verify found differences
//	7    already complete: --checkpoint's file says this job is done, and
//	     nothing was done (--restart does it again)
//	8    a damaged backup: a file of it is missing or does not match the
//	     checksum its manifest records (the message names the file);
//	     restore wrote nothing
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
// Every command that takes --filter (count, delete, export, copy, verify,
// query) checks it against the table before it acts: it reads a sample of
// its scope (one request of up to 1,000 entities; within the filter's
// PartitionKey and RowKey comparisons when the filter is a conjunction of
// them and others, so PartitionKey eq 'alice' and ... samples alice's
// partition) and stops with exit status 2, before it writes, deletes or
// prints anything, when the filter names a property that no entity read
// has (a misspelled name matches nothing: "Totl: no entity has it (of the
// 1000 read); did you mean Total?"), or compares a property with a literal
// of another EDM type than the one it has there (naming both types and,
// when the value converts, the literal to write: Quantity eq 3 against an
// Int64 is "write 3L"). The service's documentation promises valid results
// only for a literal of the property's own type; what it does with another
// is not documented (Azurite compares Int32 and Double numerically, and
// fails an Int64 literal against an Int32 or Double property).
// PartitionKey, RowKey (strings) and Timestamp (a DateTime) need no read.
// --check-filter=false skips the check, for a property too rare for the
// sample to have, or one that holds several types.
//
// delete is the design guide's high-volume delete: keys in rounds of
// 2,000, deleted with unconditional deletes in entity group transactions
// (batch.Write). To empty a whole table, drop it instead: one request.
//
// With --checkpoint FILE the scan's position is saved every few seconds and
// on Ctrl-C (written to a temporary file, synced, renamed: never torn).
// Running the same command with the same file resumes. A checkpoint
// belongs to one job: its command, table, filter, scope, share, plan and
// --parallel, and export's output and format, import's input, copy's and
// verify's target; with another, the run is refused before any request
// (exit status 2) with what differs ("of table orders, not orders2"). A
// checkpoint of a job that completed never turns a run into a silent
// no-op: the run writes nothing (count and verify print what their run
// found), names the output that is already complete, and exits with
// status 7, so that a nightly job reusing its
// checkpoint fails visibly. --restart starts the job over: it removes the
// file unread (so also one of another job or version) and replaces it at
// the first save; export then truncates its output. The summary counts
// each entity once across resumes: "N entities (M in this run)", N the
// job's. delete saves only positions whose deletes all committed, so
// resuming never skips an entity.
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
// throttled answers. A copy into another account keeps --rate on its
// writes: the source's reads, paced by the writes, only back off once the
// source throttles.
//
// # Dry runs: --dry-run and --price
//
//	tablekit copy orders orders2 --dry-run --price 0.04
//	tablekit delete logs --filter "Year lt 2024" --dry-run
//	tablekit restore /var/backups/orders orders --mode replace --dry-run
//
// import, copy, delete, restore and backup take --dry-run: the run reads
// what it must to count (the input file, the scan, its split and
// --filter's sample; restore the backup's files and the table's keys as
// its --mode needs; backup a keys-only scan, since its cost is its reads)
// and writes nothing (no table is created; delete needs no --yes), then prints
// the requests the run would send by kind: query pages (the reads the dry
// run made), transactions (grouped as the bulk writer groups them, with
// their entities) and single writes, with the total, and their cost in US
// dollars at --price P per 10,000 transactions (each request is one billed
// transaction). P defaults to 0.0005, the figure of Microsoft's Azure
// Storage performance and scalability checklist (2016: $0.01 per 200,000
// transactions), printed with its source: prices vary by region,
// redundancy and date, so pass your own (docs/throughput.md's "Dry
// runs"). A run that meets refusals or throttling sends more than the dry
// run counts. --dry-run
// with --checkpoint or --rejects, backup --dry-run with --segment, and
// --price without --dry-run, are refused with exit status 2.
//
// # Export, import and copy
//
//	tablekit export orders -o orders.jsonl --parallel 16 --checkpoint exp.ckpt
//	tablekit import orders2 orders.jsonl --create --checkpoint imp.ckpt --rejects bad.jsonl
//	tablekit copy orders orders2 --to-connection-string '...' --checkpoint copy.ckpt
//
// The format follows the file's extension unless --format says otherwise:
// .csv and .tsv (tab-delimited) are CSV, .jsonl and .json JSON Lines (and
// --format json is jsonl), as are standard input and output and a name
// without an extension. Any other extension (.parquet, .txt) is refused
// with exit status 2 unless --format names the format: nothing is
// written in a format the name does not say. A name ending in .gz
// (orders.jsonl.gz, orders.csv.gz) is read and written through gzip, the
// format taken from the extension before it; export writes one gzip
// member per checkpoint, so a resumed export cuts the file at the end of
// one. A gzip file not named .gz is refused, not read as text. -o may
// name a device (-o /dev/null). JSON Lines is
// the service's own JSON, one entity a line, annotated with @odata.type
// wherever JSON would lose the type; export adds Timestamp, import ignores
// it. --select names the properties to export; the keys and Timestamp
// always come, in every format of export and query. CSV is Storage
// Explorer's layout (Name and Name@type columns);
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
// its line number, written to --rejects with its input (a CSV row as the
// file has it, all its lines: with the header, fixed rows import again),
// and skipped; the exit status is then 1; the same command again with the
// checkpoint of the completed run does nothing more and exits 7, saying
// how many were rejected. --checkpoint-every sets how often to save.
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
// for import), or with the state of a backup (a DST that is an existing
// directory or a blob container URL; --at chooses the backup, as for
// restore), property by property with their EDM types, ignoring
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
// # Schema: a table's shape
//
//	tablekit schema orders
//	tablekit schema orders --sample 1000 --format json
//
// schema reads the table (every entity by default, with the parallel scan
// of count and export; --partition, --prefix and --parallel as there; or
// about --sample N entities spread over the scan's segments) and prints
// every property with its EDM types and how many entities have each, and
// how many lack it; the entity size (the bytes of its keys and of its
// properties' JSON as the service sends them, annotations included:
// neither backend's own measure of its limit) as min, median and max, with
// the keys of the largest; the number of partitions and the 10 biggest;
// and the keys' lengths and patterns (cust-0001 is [a-z]{4}-[0-9]{4}),
// the 5 most frequent of each. --format json prints the same as one JSON
// object. Memory does not grow with the table: a counter per distinct
// size gives the exact median, and since each segment comes in key order
// one partition per segment is open at a time. Cosmos DB for Table
// returns no key order, so there partitions are counted one by one, up to
// 1,048,576, beyond which the count says "at least".
//
// # Backups: backup, restore, backups
//
// backup TABLE DEST writes a backup of the table into DEST, a directory or
// a blob container URL (https://ACCOUNT.blob.core.windows.net/CONTAINER[/PREFIX],
// or Azurite's http://127.0.0.1:10000/devstoreaccount1/CONTAINER), and
// prints its ID as the last line of stdout. The first backup in DEST is
// full; each later one is incremental (the entities added or changed since
// the previous one, and the keys deleted since), unless --full. --changes
// chooses how changes are found: timestamp (the default on Table Storage,
// with --overlap before the previous backup's start) or etag (the default
// on Cosmos DB, where Timestamp filters return nothing). A container is
// reached with a SAS in DEST or --dest-sas, else with the account key of
// the connection string when DEST is in the same account, else with Entra
// ID. An interrupted backup (Ctrl-C, kill -9) leaves no backup; the next
// run removes its files and starts again. --plan FILE --segment i/n (plan
// files as export's) backs up share i of n on one of n machines: the
// backup, named by the plan's creation time or --id ID (the same on every
// share), is listed and restorable once all n shares have landed; a share
// that is not the last prints the ID and how many are still to go, and a
// share run again after a failure redoes its part.
//
//	tablekit backup orders /var/backups/orders
//	tablekit restore /var/backups/orders orders2 --at 2026-11-26T06:00:00Z
//	tablekit backups /var/backups/orders --keep 7
//
// restore DEST TABLE writes the table as of a backup: --at an ID, or a
// time (RFC 3339) for the last backup finished by then; the last by
// default. The table is created if missing; one that holds entities is
// refused (exit status 2: it read one key and wrote nothing) unless
// --mode replace (make it the backup) or add-missing (write the entities
// it lacks). Every file's SHA-256 is checked before anything is written:
// a damaged file is named, nothing is written, and the exit status is 8. --timestamp-property NAME keeps each entity's original
// Timestamp in a property. With --checkpoint FILE a restore is resumable:
// its first run records the backup before its first write, and the same
// command run again after a crash restores that backup, writing the
// entities the table lacks (--mode replace: all again); done, it exits 7.
// backups DEST lists the backups (ID, when it
// finished, full or incremental, entities written, keys deleted, entities
// in the table as of it, bytes stored); --keep N keeps the newest N,
// folding the oldest kept into a full backup from the stored files first.
// docs/backup.md says what a backup guarantees. An unknown ID, or none
// finished by the time, is exit status 3. verify TABLE DEST [--at ID|TIME]
// compares the table with the state a backup restores (a DEST that is a
// directory or a blob container URL), as verify compares two tables.
//
// # Internals
//
// One package, its files grouped by prefix. main.go parses the command
// line and prints every error, once prefixed and escaped (profile.go is
// its hidden TABLEKIT_CPUPROFILE, the binary's CPU profile, to measure a
// command as users run it); exitcode.go maps
// errors to exit statuses (the one place); connect.go opens accounts
// (targetFlags: --to-connection-string or TABLEKIT_TARGET_CONNECTION_STRING,
// else the source account).
//
// run.go is the one runner of the checkpointed commands (export, import,
// copy, delete, verify, count, schema): a command gives it a source and a
// sink, and it does the complete check, the checks before any request,
// progress, the checkpoint's last save and the summary. run_command.go is
// its front: each of those commands, and backup, restore and backups, is
// a jobCommand that names its arguments, how many of them are table
// names, its flag groups (scan, --checkpoint-every, a target account),
// its own flags and checks, and builds its run (or, for the backup
// commands, does it); the runner parses, checks the table names, runs
// the command's checks and only then opens the accounts, the target
// falling back to the source's. run_job.go is the job it runs
// (checkpoint, progress, resume or complete, the reader and writer side
// by side), run_checkpoint.go its file, run_progress.go the
// progress line, run_gc.go the collector's tuning of long streams,
// run_stophook.go the hidden hooks of the tests (TABLEKIT_TEST_STOP stops
// a run after its Nth save, TABLEKIT_TEST_ROUND_OPS makes rounds smaller),
// run_rate.go --rate, run_dryrun.go --dry-run's flags (--price's default
// and its source), the requests a connection makes, and the printed plan.
//
// Sources (src_*.go): src_scan.go plans a table's scan (scope, share,
// segments) and opens any projection of it; src_share.go reads --segment
// and plan files; src_filtercheck.go checks --filter's names and literals
// against a sample's shape; src_file.go opens an input (gzip by name) and
// reads its records in rounds, their text in slabs that the import's writer
// gives back, with the round's item list, once the round is written.
//
// Sinks (sink_*.go): sink_file.go writes export's file (and its CSV
// columns' first pass); sink_table.go writes rounds to a table for import
// and copy and sorts out rejects, sink_addexisting.go settles adds that
// find their entity stored; sink_delete.go deletes; sink_verify.go
// compares; sink_dryrun.go plans --dry-run's transactions (batch.Plan)
// without writing (dryrun_backup.go those of restore and backup); sink_tally.go counts, and with sink_shape.go (a table's shape
// in bounded memory: types, sizes, partitions, key patterns) reads it for
// schema.
//
// Formats (format_*.go): format_flags.go picks a file's format from its
// name (and --select's names) and checks an input's first line;
// format_jsonl.go turns entities into JSON lines and CSV rows, and back:
// export writes each raw entity's JSON as its read checked it
// (RawEntity.AppendJSON) and gives its properties' buffer back to the
// scan (sink_file.go, writeRaw), query and get through Table.AppendJSON; an
// upserting import cuts each line into a raw entity's keys and properties
// (splitLine; a line laid out as export writes it by the bounds of its
// properties alone, splitExported), which the write checks as it encodes
// them, other readers
// decode with Table.Unmarshal;
// format_csv.go converts Storage Explorer's CSV to neutral rows,
// format_csvread.go is its RFC 4180 reader; format_double.go the text of
// NaN and the infinities; format_output.go keeps an output file's length
// for resumes (gzip members ending at each save).
//
// Comparison (compare_*.go, verify's): compare_merge.go merges two
// key-ordered streams, compare_side.go reads a table's side in key order
// (sorted on Cosmos DB), compare_diff.go compares two entities,
// compare_file.go reads a file's entities sorted, and compare_spillsort.go
// is the sort in bounded memory both use.
//
// Commands (cmd_*.go): each command's flags, its checks of them, and what
// it gives the runner or does itself: cmd_entity.go get, put and rm,
// cmd_query.go query and its streaming table and csv, cmd_sas.go, cmd_policy.go
// every stored access policy call, cmd_plan.go writes plan files,
// cmd_schema.go prints a table's shape, cmd_backup.go is backup, restore
// and backups over package backup (restore runs on the job, not the
// runner: it reads no table), cmd_backup_dest.go opens their DEST (a
// directory or a container), cmd_backup_share.go backup's --plan,
// --segment and --id, and cmd_backup_verify.go is verify's backup
// DEST, read through backup.Entities.
package main
