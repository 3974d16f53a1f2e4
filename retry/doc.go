// Package retry is tablekit's one retry layer for Azure Table Storage: it
// decides which failures are worth another attempt, waits between attempts
// with exponential backoff (github.com/cenkalti/backoff/v4), honours the
// service's Retry-After, and gives up on time. It works for every request
// of an aztables client, as an azcore pipeline policy, and around any
// operation, as [Do].
//
// # What is retried
//
// [IsRetryable] is the default classifier:
//
//	retried                                   not retried
//	408 Request Timeout                       400, 401, 403, 404, 405, 409, 411,
//	429 Too Many Requests                     412, 413, 415, ... (every other 4xx)
//	500 (e.g. OperationTimedOut)              501 Not Implemented
//	502, 503 (ServerBusy), 504                505 HTTP Version Not Supported
//	409 TableBeingDeleted on Create Table     409 on anything else
//	connection reset/refused/aborted, EOF,    context.Canceled, DeadlineExceeded
//	broken pipe, network timeouts, DNS        errors azcore marks non-retriable
//
// A 4xx fails the same way however often it is sent, and a canceled context
// means the caller stopped waiting. Set [Policy.Classify] to decide
// differently.
//
// # The schedule
//
// A [Policy] holds the numbers; its zero value means [Default]: 5 attempts,
// waiting about 0.5s, 1s, 2s and 4s (±20% jitter), each wait at most 30s,
// everything within 2 minutes. [Checklist] follows the Table Storage
// performance checklist: about 2s, 5s, 12.5s and 30s, then give up.
//
// The first broken connection (reset, refused, EOF before any response) is
// retried at once, as the checklist advises: it is usually a stale
// keep-alive connection. Later failures back off. A response carrying
// Retry-After (seconds or an HTTP date), retry-after-ms or
// x-ms-retry-after-ms (Cosmos DB's 429) is retried after the wait it asks
// for, up to MaxInterval, never sooner and not later either: the server
// knows when it has room. Every wait ends early when the context does.
//
// # Installing the policy into aztables clients
//
// [NewPipelinePolicy] returns an azcore policy. Install it per call and turn
// azcore's own retry off, so that attempts are not multiplied:
//
//	opts := &aztables.ClientOptions{ClientOptions: azcore.ClientOptions{
//		Retry:           policy.RetryOptions{MaxRetries: -1},
//		PerCallPolicies: []policy.Policy{retry.NewPipelinePolicy(nil)},
//	}}
//	client, err := aztables.NewClientWithSharedKey(tableURL, cred, opts)
//
// Existing aztables code keeps working unchanged: every method retries by
// the policy, rewinds request bodies, signs each attempt anew, and reports
// failures as the usual *azcore.ResponseError.
//
// # Operation-level retries
//
// [Do] repeats a function, for work that must be repeated as a whole or
// clients built without the policy:
//
//	err := retry.Do(ctx, nil, func(ctx context.Context) error {
//		_, err := client.UpsertEntity(ctx, entity, nil)
//		return err
//	})
//
// Inside Do, the pipeline policy of a client steps aside (one attempt per
// call), so the two never multiply.
//
// # Ambiguous writes
//
// A write whose connection broke (or whose reply was cut short) may still
// have been committed; its retry then collides with it: an insert gets 409
// EntityAlreadyExists, a conditional update or merge 412, a delete 404 or
// 412, although nobody else wrote the entity. Both layers report that as a
// *tablekit.MaybeCommittedError (errors.Is(err, tablekit.ErrMaybeCommitted))
// rather than as someone else's write; read the entity to decide. The
// pipeline policy reports a write whose last attempt got no usable reply
// the same way. Upserts and unconditional updates never collide with
// themselves.
//
// # Broken replies
//
// A reply whose body is cut short, or a successful read whose JSON body
// does not parse, is a transport failure: retried, and for writes tracked
// as possibly committed; when retrying ends on it, a read's error matches
// tablekit.ErrUnavailable. The pipeline policy detects it; a client without
// the policy reports what aztables reports.
//
// # Observing retries
//
// [Policy.OnRetry] is called before each retry with an [Event] (attempt,
// delay, status, code, error, method, path). [SlogHook] adapts it to
// log/slog. SAS signatures stay out of errors and logs: the pipeline
// policy strips the query string from the transport errors it returns,
// Event.Path never has one, and SlogHook removes query strings from what it
// logs. (Do returns op's own errors as op made them.)
package retry
