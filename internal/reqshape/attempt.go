package reqshape

// SingleAttempt, set on a request with policy.Request.SetOperationValue,
// tells the retry pipeline policy to make exactly one attempt, because the
// code that sent it retries it itself: package batch's Write resends whole
// transactions with its own loop. A request is marked where it is built,
// so the policy's behaviour follows from the request, not from its context.
type SingleAttempt struct{}

// Body, set on a request with policy.Request.SetOperationValue, holds the
// bytes of the request's body, so that the retry policy sends each attempt
// from a reader of its own: a reply can arrive before the transport has
// sent the whole body, and net/http may still be reading the previous
// attempt's reader when the next attempt starts. Rewinding that one shared
// reader under it, as a retry without the bytes must, is a data race.
type Body struct{ Bytes []byte }
