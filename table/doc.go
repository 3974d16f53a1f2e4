// Package table reads and writes your own Go structs in Azure Table Storage
// (and the Cosmos DB Table API) with exact EDM types, validation before any
// request, typed errors, and a connection tuned for parallel work.
//
// # Connecting
//
// A [Service] is one account. Make it once and share it:
//
//	svc, err := table.NewService(os.Getenv("TABLEKIT_CONNECTION_STRING"), nil)
//
// Connection strings from the portal (AccountName, AccountKey, and
// EndpointSuffix or TableEndpoint), SAS connection strings, Cosmos DB's
// TableEndpoint form and "UseDevelopmentStorage=true" (Azurite) all work with
// [NewService]; [NewServiceWithSharedKey], [NewServiceWithToken] and
// [NewServiceWithSAS] cover the other credentials. [NewServiceWithSAS] takes an
// account SAS URL (https://account.table.core.windows.net/?sv=...&sig=...) or a
// table SAS URL (.../<table>?sv=...&tn=<table>&sig=...). With
// [NewServiceWithToken] the token's scope is aztables':
// https://storage.azure.com/.default for Table Storage, the cloud's Cosmos DB
// audience ([Options].Azcore.Cloud) for Cosmos DB. https is required except for
// loopback unless [Options].AllowInsecureHTTP is set; the emulator's well-known
// account (its key is public) may use http on any host, so
// "UseDevelopmentStorage=true;DevelopmentStorageProxyUri=http://azurite"
// reaches a containerised Azurite. A refused loopback connection says that no
// emulator is listening and how to start one.
//
// # Table Storage and Cosmos DB
//
// [Options].Backend says whether the endpoint is Azure Table Storage or Azure
// Cosmos DB for Table; by default ([DetectBackend]) its host tells, as aztables
// tells: a host containing ".table.cosmos." or ".table.cosmosdb." is Cosmos DB.
// Each backend has its own limits, all checked before any request (Cosmos DB:
// transactions and entities up to 2 MiB, RowKey up to 255 bytes, four reserved
// property names), and Cosmos DB lacks service properties and stats, stored
// access policies and a secondary location: those calls are
// [tablekit.ErrUnsupported] there, with nothing sent. docs/cosmos.md has every
// difference, and what packages query and batch do about its unsorted query
// results and its throttling.
//
// # The account
//
// [Service.Tables] lists table names (by prefix, paged), [Service.Properties]
// and [Service.SetProperties] read and write CORS, logging and metrics,
// [Service.Stats] reads geo-replication status and last sync time (on the
// secondary, Azurite's included); on Cosmos DB, which has none of these, they
// are tablekit.ErrUnsupported. Stats is sent to the secondary endpoint
// ([Options].SecondaryEndpoint); Azurite answers it on its path-style secondary
// (<account>-secondary), always live. [Service.SetProperties] keeps the parts
// left nil (Cors, Logging, HourMetrics, MinuteMetrics), and the service may
// take up to 30 seconds to apply a change. [Service.DeleteTable] is the
// high-volume delete pattern. Stored access policies are package sas's
// (sas.Policies, sas.SetPolicies), and sas.ServiceCredential signs with the key
// the service holds.
//
// # Reading from the geo-secondary
//
// [Options].Location ([PrimaryThenSecondary], [SecondaryOnly]) sends point
// gets and queries to the account's read-only secondary when the primary
// fails retryably, or always; writes stay on the primary. The secondary is
// <account>-secondary.table.<suffix> on the service and <account>-secondary
// on Azurite's host and port, or the connection string's
// TableSecondaryEndpoint; set [Options].SecondaryEndpoint for any other.
// Its path is the primary's, or the primary's with "-secondary" appended
// (Azurite's form). [PrimaryThenSecondary] moves to the secondary on the
// failures the retry policy would retry: 503, 500, timeouts, refused
// connections. It lags behind, with no bound the service
// guarantees: [WithReadLocations] tells a caller
// whether what it read may be stale. Pass WithReadLocations(ctx, &rl) to a
// query's iterator or to any read; [ReadLocations] counts its entities and
// query pages.
//
// # Requests
//
// A Service sends its data requests (point gets, inserts, upserts, updates,
// deletes, query pages, transactions) on an azcore pipeline tablekit builds:
// each is built as aztables v1.4.1 builds the same request, with the entity as
// tablekit encoded it, and its reply goes to tablekit's decoder, so no entity
// is decoded into a map and encoded again. Its management calls (tables,
// service properties and stats, access policies) go through aztables clients on
// the same transport. Both get what [ClientOptions] installs: TCP_NODELAY, an
// idle pool sized to [Options].PoolSize (default [DefaultPoolSize], 64; Go
// keeps 2, and the checklist's advice is a limit near the number of concurrent
// requests), the retry policy of package retry as the only retry layer, inserts
// that do not make the service echo the entity, and the caller's
// [Options].Azcore (policies, logging, tracing, cloud). Code that already uses
// aztables gets the same by passing table.ClientOptions(nil) to its aztables
// constructor; [Wrap] opens a table over such a client, through aztables' own
// (slower) methods.
//
// Pooled connections are closed after [Options].IdleConnTimeout unused.
// Azurite closes idle connections after 5 s; the service after about 4
// minutes. A request that races a closing connection fails with a reset and
// is retried by the retry layer.
//
// # Throughput
//
// [Options].Rate gives a Service one limiter that every data request of its
// tables draws from before it is sent (each attempt again): a cap in
// entities a second ([Rate].EntitiesPerSecond, a transaction counting its
// operations, a query page the entities it returned), optionally in
// requests a second, and [DefaultPartitionRate] (2,000 entities a second,
// the service's partition target) for the writes to one partition. A
// throttled answer lowers the rate for every caller of the Service at once,
// and answers without throttling raise it again, so that a bulk load
// converges to what the account gives it instead of a retry storm;
// [Rate].OnChange and the spans' rate events show the rate. It is off by
// default (nil): a limiter cannot know an account's free capacity, and the
// per-partition cap would slow a load that no service throttled. Tables
// opened with [Wrap] and aztables clients do not draw from it.
//
// # Entities
//
// An entity is a struct with string fields PartitionKey and RowKey (by name,
// or tagged `table:"PartitionKey"` / `table:"RowKey"`). Other exported fields
// are properties, named as in Go unless a tag renames them:
//
//	type Order struct {
//		PartitionKey string    // customer id
//		RowKey       string    // order id
//		Total        float64   // Edm.Double, also for 1.0
//		Items        int32     // Edm.Int32
//		Placed       time.Time // Edm.DateTime, UTC, 100 ns
//		Ref          table.GUID
//		Note         *string   `table:",omitempty"` // nil: not stored
//		Lines        []Line    `table:",json"`      // a JSON string
//		table.Meta             // ETag and Timestamp of what was read
//	}
//
// Go types map to EDM types as follows: string to Edm.String; bool to
// Edm.Boolean; int8, int16, int32, int, uint8, uint16 to Edm.Int32 (a value
// out of range is a validation error, never truncated); int64, uint32, uint,
// uint64 to Edm.Int64 (sent as a string with its annotation, so no precision
// is lost); float32, float64 to Edm.Double (annotated, so 1.0 stays a double,
// and NaN and the infinities as the strings "NaN", "Infinity" and
// "-Infinity" that Microsoft's SDKs write and the service stores);
// time.Time to Edm.DateTime (converted to UTC, 100 ns resolution; the zero
// time is not stored and reads back as zero); [GUID] to Edm.Guid; []byte to
// Edm.Binary; aztables' EDMInt64, EDMDateTime, EDMGUID and EDMBinary to the
// EDM type each stands for; an encoding.TextMarshaler to Edm.String (except
// a 16-byte array type, a UUID that other clients store as Edm.Guid: use
// [GUID]). An embedded aztables.Entity gives the keys and a read-only
// Timestamp. Pointers are
// nullable: nil means the property is absent. Structs, maps and slices need
// the "json" tag option; otherwise [New] reports a [tablekit.ValidationError].
//
// Tag options: omitempty (zero values, as reflect.Value.IsZero sees them,
// are not sent: unlike encoding/json an empty non-nil slice is not zero),
// json, parse (a time, GUID or []byte stored by other clients as Edm.String
// text), etag and
// timestamp (receive the ETag / Timestamp of what was read), and "-" to skip
// a field. Embedded structs are flattened, as in encoding/json.
//
// Reads take a stored value only into a field of its own EDM type or a
// lossless widening (Int32 into an int64 or float64 field); anything else,
// such as an Edm.String into a time.Time, is a [tablekit.DecodeError]. An annotation
// names a value's type and never changes it: a value outside its annotated
// type's JSON form or range ("X@odata.type":"Edm.Int32" on 2147483648 or on
// a string) is a [tablekit.DecodeError] naming the property, the type and what is
// wrong, here and in [Entity] and [RawEntity]; only a number without
// annotation is typed by its form. A float field reads NaN and the
// infinities in every spelling writers use ("NaN", "Infinity", "-Infinity",
// "INF", "-INF"), with or without the annotation. docs/entities.md's
// Typed entities section has the full table.
//
// # Dynamic entities
//
// [Entity] is an entity without a struct: keys, a property map and [Meta]. A
// value's Go type is its EDM type (string, bool, int32, int64, float64,
// time.Time, [GUID], []byte), both ways, so writing back what was read never
// changes a stored type; any other Go type is a [*tablekit.ValidationError].
// Table[Entity] works with everything Table[T] does. [As] opens the same table
// with another type, so one transaction can hold rows of several types and a
// mixed query can decode each row by a discriminator: [Table.Marshal] of one
// view and [Table.Unmarshal] of another convert an entity as a write and a read
// would. As also serves a Table[Entity] beside typed ones, and projections into
// a smaller struct. [RawEntity] keeps the properties as the service's JSON
// instead, for programs that move entities without looking at them (copies,
// backups): no map is built or encoded again.
//
// # Writing
//
// [Table.Add] inserts, [Table.Upsert] inserts or merges/replaces without a
// read, [Table.Update] changes an entity only if its ETag still matches, and
// [Table.Delete] removes one. Unconditional updates and deletes need
// [AnyETag] on purpose: an empty ETag is [tablekit.ErrInvalid].
//
// Inserts ask the service for no echo of the entity (Prefer:
// return-no-content), since the [Meta] that Add returns is all the echo
// would add; [Options].EchoInserts restores the echo, for Table.Add and
// the AddEntity of clients made with these options alike (without it,
// AddEntityResponse.Value is "null").
//
// A retry after a lost response may find the first attempt's work: an Add
// that then meets ErrAlreadyExists, or an Update or a conditional Delete
// that then gets 412, is [tablekit.ErrMaybeCommitted]; a Delete that then
// finds no entity returns nil, since the entity is gone, as wanted.
// [Table.Verify] resolves the doubt after a write: it reads the stored
// entity with e's keys and compares what the write sent, with Replace
// every property T maps, with Merge the properties e carries.
//
// Before any request every rule of the table's backend ([Backend]) is
// checked. On Table Storage: keys of at most 1 KiB without / \ # ? or
// control characters, at most 252 properties, valid property names,
// strings of at most 32 Ki UTF-16 code units, binary values of at most 64
// KiB, and 1 MiB per entity by the service's size formula. Cosmos DB for
// Table measures an entity's JSON instead (up to 2 MiB), limits RowKey to
// 255 bytes, and reserves the property names ID, rid, etag and ResourceId
// (docs/cosmos.md has every difference). A failure is a [*tablekit.ValidationError]
// naming the property and the rule; it matches [tablekit.ErrInvalid]. The
// Azurite emulator measures entity size on the JSON body instead (binary
// counts 4/3 as base64), so it refuses some entities near 1 MiB that the
// service and this package accept.
//
// # Errors
//
// Service failures are [*tablekit.ServiceError] values that match one sentinel
// ([tablekit.ErrNotFound], [tablekit.ErrAlreadyExists], [tablekit.ErrPreconditionFailed],
// [tablekit.ErrTableNotFound], [tablekit.ErrForbidden], ...) with errors.Is, and keep the
// *azcore.ResponseError reachable with errors.As. Messages never contain a
// URL query (where a SAS signature lives) or a key.
//
// Code that also makes plain aztables calls (a transaction of several
// entity types) can use [Table.Marshal] / [Table.Unmarshal] for the same
// entity encoding (Marshal's JSON is the body every write of this package
// sends); its errors are aztables' *azcore.ResponseError.
//
// # Keys
//
// [ReverseTicks] makes row keys that sort newest first, putting the latest
// entries at the top of a partition (the log tail pattern). [PadUint] makes
// numbers sort as numbers ("123" becomes "00000123" with width 8). [Shard]
// with [ShardPrefixes] spreads an append-only key (a date, a counter) over
// several partitions instead of one hot partition: its prefixes have as
// many digits as shards-1 needs, and its hash is FNV-1a, the same in every
// process and language.
//
// # RawEntity in detail
//
// Properties is a JSON object of every property but the keys and
// Timestamp, each with its @odata.type annotation where the service wrote
// one, as in
//
//	{"Count@odata.type":"Edm.Int64","Count":"5","Name":"x"}
//
// Reading drops the odata metadata (the ETag goes to Meta) and puts each
// annotation just before its property, as the service writes them (other
// writers, aztables' own decoding among them, put it after). A number
// without an annotation is typed by its form, as Entity reads it (a
// Double when it has a '.' or an exponent, an Int64 beyond Int32's range)
// and gets the annotation that keeps that type: some writers, Azurite
// among them, store an unannotated 1.0 as an Int32 (so does aztables'
// own encoding, for every entity type of a table given to Wrap).
// Every value must be in its annotated type's JSON form and range (an
// annotation names a type, it never changes one): reading a misfit is a
// *tablekit.DecodeError, writing one a *tablekit.ValidationError, both naming the property,
// the type and what is wrong. Writing also checks that
// Properties is an object of scalar values with valid property names (and
// none the backend reserves), no more than the backend allows, before any
// request; nil or empty writes an entity with no properties. Cosmos DB's
// entity size (JSON bytes) is checked too; Table Storage's, by its formula
// of each value's stored size, is the service's to enforce: a raw entity
// holds what the service sent, and a hand-written one should be checked by
// whoever wrote it.
//
// # Entity's types
//
// The Go type of each value is its EDM type, both ways:
//
//	string     Edm.String
//	bool       Edm.Boolean
//	int32      Edm.Int32
//	int64      Edm.Int64
//	float64    Edm.Double (NaN and ±Inf too)
//	time.Time  Edm.DateTime (UTC, 100 ns)
//	GUID       Edm.Guid
//	[]byte     Edm.Binary
//
// Reading yields exactly these types, so writing an entity back never
// changes a stored type; a value outside its annotated type's form or
// range is a *tablekit.DecodeError, never a value of another type. A JSON number
// without an annotation is read by its form, as the service and Azurite
// write them: an integer is an int32 (an int64 beyond Int32's range), a
// number with a '.' or an exponent is a float64 (Azurite writes a Double
// 1.0 unannotated). Any other Go type (int,
// float32, uint64, a struct, nil) is a *tablekit.ValidationError naming the property,
// before any request, as is every rule a typed entity obeys.
//
// # ClientOptions in detail
//
//	client, err := aztables.NewClientWithSharedKey(url, cred, table.ClientOptions(nil))
//
// o may be nil. The result is a new value each call, with a transport of
// its own (unless Options.Transport is set).
//
// # LocationMode and the secondary's lag
//
// The secondary is a copy that lags behind the primary, typically by
// minutes, with no bound the service guarantees: a read from it may miss
// recent writes, and an entity read there may be older than one read just
// before from the primary. Service.Stats gives LastSyncTime, before which
// every write is on the secondary. Use it for reads that prefer a stale
// answer to none.
//
// # How a Service sends its requests
//
// Its data requests (entity reads and writes, queries, transactions) go on
// an azcore pipeline tablekit builds for it; its management calls (tables,
// service properties and stats, access policies) go through aztables
// clients on the same transport and credential.
//
// [Options].Azcore configures both: its extra per-call and per-retry
// policies, logging and telemetry apply to each, its TracingProvider
// traces tablekit's requests, bulk writes and queries too, and its Cloud
// gives the token audience of Cosmos DB endpoints.
package table
