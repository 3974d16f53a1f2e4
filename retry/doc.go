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
// everything within 2 minutes, retrying what [IsRetryable] accepts; write a
// Policy as the few fields that differ from it. [Checklist] follows the
// Table Storage performance checklist's example for 503 Server Busy and 500
// timeouts: about 2s, 5s, 12.5s and 30s (each wait capped at 30s), then give
// up after the fifth attempt; interactive requests usually want [Default].
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
// [Policy.OnRetry] is called before each retry (never for the first attempt
// or after the last one) with an [Event] (attempt, delay, status, code,
// error, method, path), from the goroutine of the request. [SlogHook]
// adapts it to log/slog, with the attributes attempt, delay, status, code,
// method, path and, for transport errors, error; account keys are never
// part of an Event. SAS signatures stay out of errors and logs: the pipeline
// policy strips the query string from the transport errors it returns,
// Event.Path never has one, and SlogHook removes query strings from what it
// logs. (Do returns op's own errors as op made them.)
//
// # The pipeline policy
//
//	opts := &aztables.ClientOptions{ClientOptions: azcore.ClientOptions{
//		Retry:           policy.RetryOptions{MaxRetries: -1},
//		PerCallPolicies: []policy.Policy{retry.NewPipelinePolicy(nil)},
//	}}
//
// Each attempt is a fresh copy of the request with its body rewound, sent
// through the rest of the pipeline, so aztables' authentication policy signs
// it again (new x-ms-date). The policy also turns azcore's retry off for its
// own attempts through the request context ([policy.WithRetryOptions]), so
// even a client built without MaxRetries -1 does not multiply attempts; the
// option still states the intent and avoids a dead policy in the pipeline.
//
// Outcomes, as aztables' methods then report them:
//   - success, or a status the classifier does not retry: the response as
//     is, and aztables builds its usual *azcore.ResponseError for a failure;
//   - a retryable status on the last attempt: that response, likewise;
//   - a transport error, or a response broken in transit (body cut short;
//     a successful GET whose JSON body does not parse), on the last
//     attempt: an error matching tablekit.ErrUnavailable that wraps it;
//   - a write that may have reached the service on an earlier attempt and
//     then failed as its own success would make it fail (an insert 409
//     EntityAlreadyExists, a conditional update or merge 412, a delete 404
//     or 412), or got no usable reply on its last attempt: a
//     *tablekit.MaybeCommittedError;
//   - the context ending: its error, at once, wrapping the last failure.
//
// Transport errors are returned without the URL's query string, so a SAS
// signature never appears in an error. The policy makes a single attempt,
// leaving retrying to the caller, for a request made inside [Do] (Do marks
// the context it hands its operation) and for a request whose sender
// marked it to be sent once (tablekit's bulk writer, which resends whole
// transactions itself).
//
// # What Do returns
//
// Do returns:
//   - nil when an attempt succeeded;
//   - op's error unchanged when the policy's classifier rejects it;
//   - a *tablekit.MaybeCommittedError when a write failed as its own
//     earlier success would make it fail (an insert 409
//     EntityAlreadyExists, a conditional update 412, a delete 404 or 412)
//     after an attempt that may have reached the service;
//   - when attempts or MaxElapsed ran out: op's last error wrapped, and
//     matching tablekit.ErrUnavailable when it was no reply at all;
//   - ctx's error (context.Canceled or DeadlineExceeded), wrapping the last
//     failure if there was one, as soon as ctx ends: during a wait Do stops
//     at once, and op is not called again.
//
// Each wait follows the policy: exponential backoff with jitter, no wait for
// the first broken connection, a server's Retry-After instead when the
// error is an *azcore.ResponseError that carries one.
//
// # IsRetryable in detail
//
// Retryable:
//   - an *azcore.ResponseError with status 408, 429, 500, 502, 503 or 504;
//   - 409 TableBeingDeleted answering a table create (POST .../Tables): the
//     name becomes free once the deletion finishes;
//   - transport errors: connection reset, refused or aborted, broken pipe,
//     EOF or unexpected EOF, a connection the server closed while idle,
//     network timeouts (such as a response-header timeout), DNS failures;
//   - a response broken in transit, whatever the
//     method: a body cut short is a broken connection.
//
// Not retryable, because another attempt fails the same way:
//   - every other status, in particular the other 4xx (400, 401, 403, 404,
//     409, 412, 413, 415, ...) and 501, 505;
//   - context.Canceled and context.DeadlineExceeded: the caller gave up;
//   - errors that azcore marks as non-retriable (the pipeline policy turns
//     a failed download of a POST or PATCH response into a broken reply,
//     which the retry loop tracks as possibly committed);
//   - nil and every error not listed above, for example a validation error
//     raised before any request was sent.
package retry
