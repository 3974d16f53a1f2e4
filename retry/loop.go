package retry

import (
	"context"
	"net/http"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/internal/errmap"
	"github.com/tablekit/tablekit/internal/opdesc"
)

// outcome is what one attempt produced, as the attempt function of run
// reports it.
type outcome[T any] struct {
	// val is the attempt's value: returned on success, and with a failure
	// the caller reads itself (see handBack).
	val T
	// err is the failure, nil on success: an *azcore.ResponseError for a
	// failed response, a transport error otherwise.
	err error
	// responded says a response arrived, so err is no broken connection
	// and cannot have left the request half sent.
	responded bool
	// handBack says the caller reads the failed response in val itself:
	// when retrying ends on this failure, run returns val and no error.
	handBack bool
	// final ends the loop at once with err as it is, unclassified: the
	// attempt could not be made at all.
	final bool
}

// run is the one retry loop behind Do and the pipeline policy. It calls try
// until an attempt succeeds or retrying ends, and owns every decision in
// between: classifying failures, tracking whether a write may already
// have committed, the schedule (backoff, Retry-After, the immediate retry of
// a first broken connection), OnRetry, and the context. desc describes the
// operation (the zero Desc for Do's, which run cannot see); req, when
// known, names the request in events. drop, when set, releases the value
// of a failed attempt that run will not return. p must come from resolve.
func run[T any](ctx context.Context, p Policy, desc opdesc.Desc, req *http.Request, drop func(T), try func() outcome[T]) (T, error) {
	var zero T
	s := newSchedule(p)
	var last error
	mayHaveCommitted := false
	for attempt := 1; ; attempt++ {
		if ctx.Err() != nil {
			return zero, stopped(ctx, last)
		}
		o := try()
		if o.err == nil {
			return o.val, nil
		}
		if o.final {
			return zero, o.err
		}
		release := func() {
			if drop != nil {
				drop(o.val)
			}
		}
		if ctx.Err() != nil {
			release()
			if !isContextError(o.err) {
				last = o.err
			}
			return zero, stopped(ctx, last)
		}
		if op, own := ownCollision(desc, o.err); own && mayHaveCommitted {
			return zero, &tablekit.MaybeCommittedError{Operation: op.Name(), Attempts: attempt, Err: o.err}
		}
		if !o.responded && (isTransportError(o.err) || isBroken(o.err)) && errmap.MayHaveReached(o.err) {
			mayHaveCommitted = true
		}
		if !p.Classify(o.err) {
			if o.handBack {
				return o.val, nil
			}
			return o.val, o.err
		}
		last = o.err
		d, ok := s.next(attempt, o.err, !o.responded && isConnError(o.err))
		if !ok {
			if o.handBack && !(mayHaveCommitted && desc.IsWrite()) {
				return o.val, nil
			}
			release()
			return zero, exhausted(desc, attempt, o.err, mayHaveCommitted)
		}
		if p.OnRetry != nil {
			ev := newEvent(attempt, d, o.err)
			if req != nil {
				ev.Method, ev.Path = req.Method, req.URL.Path
			}
			p.OnRetry(ev)
		}
		traceRetry(ctx, attempt, d, o.err)
		release()
		if !sleep(ctx, d) {
			return zero, stopped(ctx, last)
		}
	}
}
