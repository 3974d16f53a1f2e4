package batch

import (
	"context"
	"net/http/httptrace"
	"sync"
)

// observer watches the attempts the client's retry pipeline makes for one
// Submit, which Submit cannot otherwise see: it needs to know whether an
// attempt before the last may have committed.
//
// An attempt that got a connection may have committed unless its response
// arrived whole: net/http returns a connection to its pool only after
// reading a response to the end, so that is the sign. A refusal read
// whole (503, 429) is therefore not in doubt, while a reset, a lost or a
// cut-short reply is. Where the sign is missing (HTTP/2, a server that
// closes after answering) the attempt counts as in doubt: when unsure,
// maybe committed.
//
// Each hook must land on its own attempt, and the hooks share one trace.
// GetConn and GotConn run in the caller's goroutine before the request is
// sent, and PutIdleConn before the body's reader sees its end, so they
// are ordered with the attempts. WroteRequest is not: net/http calls it
// from the connection's writer, which may run after the response has been
// handed back and the next attempt has begun; so it is not used (an
// attempt with a connection counts as written).
type observer struct {
	mu       sync.Mutex
	attempts []attemptSeen
}

type attemptSeen struct {
	connected, whole bool
}

// attach returns ctx with the observer's hooks added to any trace in it.
func (o *observer) attach(ctx context.Context) context.Context {
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		GetConn: func(string) {
			o.mu.Lock()
			o.attempts = append(o.attempts, attemptSeen{})
			o.mu.Unlock()
		},
		GotConn: func(httptrace.GotConnInfo) {
			o.update(func(a *attemptSeen) { a.connected = true })
		},
		PutIdleConn: func(err error) {
			if err == nil {
				o.update(func(a *attemptSeen) { a.whole = true })
			}
		},
	})
}

func (o *observer) update(f func(*attemptSeen)) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if n := len(o.attempts); n > 0 {
		f(&o.attempts[n-1])
	}
}

// doubt reports whether an attempt before the last may have committed,
// and how many attempts were made.
func (o *observer) doubt() (inDoubt bool, n int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	n = len(o.attempts)
	for _, a := range o.attempts[:max(n-1, 0)] {
		if a.connected && !a.whole {
			inDoubt = true
		}
	}
	return inDoubt, n
}
