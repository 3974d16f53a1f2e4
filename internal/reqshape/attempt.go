package reqshape

// SingleAttempt, set on a request with policy.Request.SetOperationValue,
// tells the retry pipeline policy to make exactly one attempt, because the
// code that sent it retries it itself: package batch's Write resends whole
// transactions with its own loop. A request is marked where it is built,
// so the policy's behaviour follows from the request, not from its context.
type SingleAttempt struct{}
