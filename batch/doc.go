// Package batch writes many entities with few requests: entity group
// transactions (one atomic request of up to 100 operations on one
// partition) and a bulk writer that turns any number of operations into as
// few such transactions as the service allows.
//
// A transaction is one request and is billed as one transaction whatever
// it holds, and the service applies it all or not at all. It saves round
// trips, not capacity: toward the scalability targets (entities per second
// per partition and per account) a transaction of 100 entities counts as
// 100 entities. On one core, Azurite stores about 7,700 entities per second
// in sequential 100-operation transactions against 1,300 with single
// inserts, and about 11,000 with 4 transactions in parallel: there the
// checklist's measurements put most of the gain of parallel transactions,
// so Write keeps [DefaultInFlight] (4) in flight.
//
// # One transaction
//
// [New] starts a [Transaction] on a table.Table; [Transaction.Add],
// [Transaction.Upsert], [Transaction.Update] and [Transaction.Delete] add
// operations, and [Transaction.Submit] sends them:
//
//	res, err := batch.New(orders).
//		Add(line1).
//		Add(line2).
//		Update(header, table.Merge, header.ETag).
//		Submit(ctx)
//
// Every rule of the service is checked before the request, with an
// [*tablekit.ValidationError] (tablekit.ErrInvalid) naming the rule and the
// operation: at least one and at most [MaxOps] operations, one PartitionKey
// (Azurite accepts mixed keys, the service does not), each RowKey once, a
// request body within the
// limit of the table's backend ([tablekit.ErrInvalid]: under 4 MiB on Table
// Storage, 2 MiB on Cosmos DB), and every entity valid by package table's
// rules (tablekit.ErrInvalid names the property). Conditional updates
// and deletes need an ETag or table.AnyETag; an empty ETag is
// tablekit.ErrInvalid, as in package table.
//
// The body size is exact: tablekit writes the multipart body itself, as
// aztables writes it (URLs with the escaped keys and any SAS, the same
// headers, the multipart framing) with each entity as tablekit encoded it,
// and measures what it wrote. For a table given to table.Wrap, aztables
// builds the body, and its length is computed from the same inputs with
// the same library calls (the entity JSON as aztables re-encodes it, an
// upper bound for the URLs). [Transaction.Size] reports it. Tests compare
// it with the bytes sent, and a body of 4 MiB - 1 byte commits on Azurite.
//
// On success Submit returns an [OpResult] per operation, in order, with the
// new ETag of each write.
//
// # Failures
//
// The service answers a failed transaction with status 202 and the failure
// inside the multipart reply (which aztables does not read). Submit reads
// it and returns a *tablekit.ServiceError with Operation "transaction" and
// the Index of the failed operation (the service writes it in front of its
// message), its status, error code and message. Nothing in the transaction
// was written. It matches the sentinel of the operation's outcome:
// tablekit.ErrAlreadyExists for an Add of an existing entity,
// tablekit.ErrPreconditionFailed for an ETag mismatch, tablekit.ErrNotFound
// for an Update or Delete of a missing entity.
//
//	var se *tablekit.ServiceError
//	if errors.As(err, &se) && se.Index >= 0 && errors.Is(err, tablekit.ErrAlreadyExists) {
//		log.Printf("line %s exists already", lines[se.Index].RowKey)
//	}
//
// errors.As with *azcore.ResponseError reaches the operation's own response
// (409 EntityAlreadyExists, say). Failures of the whole request are
// *tablekit.ServiceError values with Index -1. A 202 whose body does not
// parse as a multipart reply, or is cut short, leaves the outcome unknown:
// a *tablekit.MaybeCommittedError (tablekit.ErrMaybeCommitted).
//
// Requests are retried by the client's pipeline (table.ClientOptions:
// 429, 5xx, broken connections, replies cut short). When an attempt may
// have committed (its reply was lost or cut short) and the retry then
// fails as that commit would make it fail (an Add 409, a conditional
// Update or Delete 412, a Delete 404), Submit returns a
// *tablekit.MaybeCommittedError with Operation "transaction": it matches
// tablekit.ErrMaybeCommitted, and not tablekit.ErrAlreadyExists,
// tablekit.ErrPreconditionFailed or tablekit.ErrNotFound. The
// transaction applied all or nothing, so reading one of its entities
// tells. A refusal read whole (503, 429) commits nothing, so a conflict
// after it is reported as the conflict it is.
//
// An operation that fails inside a 202 reply with 503 ServerBusy or 500
// OperationTimedOut is invisible to the pipeline, and so is a garbled
// reply. retry.IsRetryable accepts both, so retry.Do around Submit retries
// them; inside retry.Do the pipeline makes a single attempt, so retries do
// not multiply, but each Submit then sees one attempt and cannot tell a
// collision with its own earlier commit: wrap only transactions of upserts
// and AnyETag updates. [Write] retries any transaction and tells.
//
// # Bulk writes
//
// [Write] takes any number of operations on any partitions ([WriteSeq]
// takes an iterator) and:
//
//   - groups them by PartitionKey and packs each group into transactions
//     within the limits of the table's backend, each filled until the next
//     operation does not fit;
//   - keeps the order of operations on the same entity: a second operation
//     on a RowKey goes into a later transaction, which is sent only after
//     the earlier one committed. By default all operations of a partition
//     commit in input order; [WriteOptions].Reorder packs large entities
//     better by letting operations on different entities of a partition
//     change places;
//   - sends transactions of different partitions in parallel, at most
//     [WriteOptions].InFlight (default 4) at once, and those of one
//     partition one after the other (so concurrent transactions never touch
//     the same entity, which the service would process slowly);
//   - retries each transaction with package retry, both whole-request
//     failures and retryable failures inside the reply, as the only retry
//     layer for its requests;
//   - reports [Progress] after each transaction and returns a [Summary].
//
// The zero [Op] kind is an upsert and its zero mode is table.Replace, so
// Op{Entity: e} writes e whatever is stored. Upserts are the safe default
// for loads: a transaction whose reply was lost, cut short or garbled is
// retried and cannot fail because its first attempt committed, and each
// entity ends exactly as last written. Add, Update and Delete work too and
// are retried the same way: if the first attempt did not commit, the retry
// does; if it did, the retry fails with 409, 412 or 404 and the transaction
// is Unknown, its error a *tablekit.MaybeCommittedError (tablekit.ErrMaybeCommitted)
// that also wraps the failure of the attempt in doubt.
//
// # Atomicity is per transaction only
//
// Write is not atomic. Each transaction is; the load as a whole is not. When
// Write returns an error (it matches [tablekit.ErrIncomplete]), some
// transactions committed and others did not, and the [Summary] says which:
// [Summary.State] gives every operation's fate (Committed, Failed, Unknown or
// NotSent) and [Summary.Incomplete] the transactions that did not commit, with
// the input positions of their operations and why. Operations that never got
// into a transaction (read after an earlier transaction of their partition
// failed, or not read because the writer stopped) are in none of them; their
// State is NotSent. After a refusal (Failed) no later transaction of the same
// partition is sent, since later operations may depend on it; by default the
// first refusal (a Failed transaction or an invalid operation) stops the
// writer: transactions already sent finish, and no new transaction of any
// partition is sent ([WriteOptions].ContinueOnError keeps the other partitions
// going). An Unknown transaction stops nothing: the partition's later
// transactions are sent, without the operations on the Unknown one's entities,
// which are NotSent (whether they may be sent depends on what the Unknown one
// did). When ctx ends, Write sends nothing more; transactions in flight end
// with ctx and are Unknown: they may have committed.
//
// So each entity's committed operations are a prefix of its operations (and,
// unless [WriteOptions].Reorder is set, each partition's committed operations a
// prefix of its operations in the input), and resubmitting the operations that
// are not Committed, in input order, is safe for upserts, including the Unknown
// ones.
//
// A transaction is [Unknown] when a retry after a lost, cut-short or
// garbled reply collided with what that attempt may have written
// (tablekit.ErrMaybeCommitted), when every attempt's reply was lost, or when
// the context ended while it was in flight.
//
// [Summary.String] is one line, the same length for ten operations or ten
// million:
//
//	20000 operations in 200 transactions: 19990 committed, 10 unknown (1 transaction), 0 failed, 0 not sent; 3 retries (2 throttled) in 2.5s
//
// Unknown operations may or may not have been written (read them to find
// out); not sent ones were not.
//
// A chunk's error ([Chunk].Err) says why it did not commit. A
// *tablekit.ServiceError names the operation the service refused; in a
// Write its Index is the operation's position in the input. A
// *tablekit.ValidationError is an invalid operation, which forms a chunk of
// its own. A *tablekit.MaybeCommittedError means a retry after a lost reply
// found the change already made; it wraps the lost attempt's failure too.
// A transport or context error matches tablekit.ErrUnavailable when every
// attempt failed.
//
// # Choosing
//
// Use a Transaction when operations must succeed or fail together: an
// order and its lines, a counter and the rows it counts, a move between two
// rows of a partition. Its limits are the service's, and breaking them is
// an error before any request.
//
// Use Write to store many entities fast: imports, migrations, fan-out
// copies, nightly loads. It needs no grouping or chunking by the caller and
// is safe to retry, but it is atomic only per transaction of at most 100
// operations on one partition.
//
// # Emulator differences
//
// Azurite (3.37) accepts transactions with mixed PartitionKeys, and checks
// upserts and updates against 1 MiB of JSON rather than the service's
// entity size formula, so a binary-heavy entity under the service's 1 MiB
// can be refused by Azurite; the checks here follow the service.
//
// # How Write packs, retries and reports
//
// Operations are grouped by PartitionKey (in order of first appearance)
// and packed into transactions within the limits of the table's backend
// (100 operations; a body under 4 MiB on Table Storage, of 2 MiB on Cosmos
// DB), each filled until the next operation does not fit. So every
// transaction is at least 95% full by the limit that binds, except: the
// last of each partition; one that the next entity does not fit into when
// entities are bigger than 5% of the body limit; one closed because the
// next operation is on an entity it already holds (a second operation on
// an entity goes into a later transaction, which is sent only after the
// earlier one committed); and, for WriteSeq, one closed early by
// WriteOptions.MaxBuffered. WriteOptions.Reorder makes the second and
// third cases rare: it packs first fit over up to 4 open transactions per
// partition instead of one.
//
// [WriteOptions].MaxBuffered counts the encoded operations waiting in open
// transactions, queued, or in flight. Operations are encoded into shared
// blocks of 16 KiB, and a block stays in memory while any of its operations
// waits: input grouped by PartitionKey keeps memory near the bound, but
// with many partitions interleaved it can exceed it, at worst by a block
// per waiting operation. A block whose operations are all done (committed
// or not) holds later ones. [WriteSeq] numbers operations by
// their position in the sequence (for Summary.State and Chunk.Ops) and
// forms the transactions of a partition as its operations arrive; when the
// bound is reached the oldest open transaction is sent as it is, early and
// less full, so input sorted or grouped by PartitionKey gives the fullest
// transactions, and with many partitions interleaved a larger bound packs
// better.
//
// Each chunk is submitted inside retry.Do with [WriteOptions].Retry, each
// submit a single attempt of the pipeline's retry policy (the request asks
// for it; on a table from table.Wrap, retry.Do's mark on the context does).
// The policy retries what the pipeline would (429, 5xx, transport failures)
// and also a retryable failure inside a 202 reply (an operation's 503
// ServerBusy or 500 OperationTimedOut), which the pipeline cannot see. Its
// OnRetry hook is called as usual; retries are also counted in [Progress]
// and [Summary]. [Progress].Throttled counts those that followed a failure
// matching tablekit.ErrThrottled (Cosmos DB's 429, Table Storage's 503
// ServerBusy and 500 OperationTimedOut); a throttled transaction committed
// nothing, and counts as committed only when a retry commits. A client
// built without table.ClientOptions keeps azcore's own retry policy, which
// retries inside each attempt: build clients with table.ClientOptions.
//
// [WriteOptions].Progress is called as transactions finish, committed or
// not; its counts never go down, and it may cancel the context given to
// Write.
//
// The default operation, Op{Entity: e}, is an upsert that replaces: a
// transaction of upserts can be retried after a lost response without
// failing and leaves each entity exactly as given; that holds for replies
// lost, cut short or garbled. Transactions holding Add, conditional Update
// or Delete operations are retried too; when such a retry follows an
// attempt that may have committed and fails with 409, 412 or 404, the
// chunk's error is a *tablekit.MaybeCommittedError (tablekit.ErrMaybeCommitted) that
// also wraps the failure in doubt, and its State is Unknown. An Unknown
// chunk does not stop the partition: its later chunks are sent without the
// operations on the Unknown chunk's entities, which are NotSent.
//
// Atomicity is per transaction only. The error is nil when every
// operation committed; otherwise it matches tablekit.ErrIncomplete, wraps the first
// failure (errors.As finds a *tablekit.ServiceError, errors.Is
// the table sentinels and context errors), and the Summary says what was
// committed: Summary.State(i) for each operation, Summary.Incomplete for
// the transactions that were refused, in doubt or not sent. When ctx ends,
// Write stops sending, waits for nothing but the requests in flight (which
// end with ctx), and returns.
//
// # What Submit returns
//
// Requests are retried by the client's pipeline (table.ClientOptions)
// when the whole request fails with a retryable status or in transport.
// A retryable failure of one operation inside the reply (503 ServerBusy,
// 500 OperationTimedOut) is not visible to the pipeline; it is a *tablekit.ServiceError
// that retry.IsRetryable accepts, so
//
//	err := retry.Do(ctx, nil, func(ctx context.Context) error { res, err = tx.Submit(ctx); return err })
//
// retries both (inside retry.Do the pipeline makes one attempt per call,
// so attempts do not multiply). Only do that when the transaction is safe
// to repeat: each Submit then sees a single attempt, so an Add, a
// conditional Update or a Delete that committed on a lost response fails
// on the retry as a plain conflict. [Write] handles this for you.
//
// # The rules a Transaction checks
//
// Every rule of the service is checked as operations are added, before any
// request: at most 100 operations, one PartitionKey, each RowKey once, a
// request body within the backend's limit (Table Storage: under 4 MiB;
// Cosmos DB: 2 MiB) measured on the bytes that will be sent, and each
// entity valid. The first broken rule is kept and returned by Submit
// (and Validate) as an [*tablekit.ValidationError]; adding more operations does not
// hide it. Entities are encoded when added, so later changes to a value
// passed in do not affect the transaction.
//
// A Transaction is not safe for concurrent use while it is built. Submit
// does not change it, so a failed transaction can be submitted again.
package batch
