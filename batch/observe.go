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
// An attempt that wrote its request may have committed unless its response
// arrived whole: net/http returns a connection to its pool only after
// reading a response to the end, so that is the sign. A refusal read
// whole (503, 429) is therefore not in doubt, while a reset, a lost or a
// cut-short reply is. Where the sign is missing (HTTP/2, a server that
// closes after answering) the attempt counts as in doubt: when unsure,
// maybe committed.
type observer struct {
	mu       sync.Mutex
	attempts []attemptSeen
}

type attemptSeen struct {
	wrote, whole bool
}

// attach returns ctx with the observer's hooks added to any trace in it.
func (o *observer) attach(ctx context.Context) context.Context {
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		GetConn: func(string) {
			o.mu.Lock()
			o.attempts = append(o.attempts, attemptSeen{})
			o.mu.Unlock()
		},
		WroteRequest: func(i httptrace.WroteRequestInfo) {
			if i.Err == nil {
				o.update(func(a *attemptSeen) { a.wrote = true })
			}
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
		if a.wrote && !a.whole {
			inDoubt = true
		}
	}
	return inDoubt, n
}
