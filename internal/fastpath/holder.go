package fastpath

import (
	"context"
	"net/http"
	"sync/atomic"
)

// Kind is what a Holder swaps.
type Kind uint8

const (
	// Read keeps a query's page.
	Read Kind = iota + 1
	// Get keeps a point get's entity.
	Get
	// Write sends Out as an entity write's body.
	Write
	// Batch sends Out as a $batch body and keeps the reply.
	Batch
)

// Holder carries one aztables call's bytes between tablekit and Policy.
// Only that call's requests see it; it is not for concurrent use.
type Holder struct {
	Kind Kind
	// Out is the request body to send (Write, Batch).
	Out []byte
	// ContentType is Out's Content-Type (Batch: the multipart boundary).
	ContentType string
	// In is the downloaded response body the policy kept (Read, Get, Batch).
	In []byte
	// Resp is the response In came from, its body replaced for aztables.
	Resp *http.Response
	// Swapped reports that the policy did its swap.
	Swapped bool
}

type holderKey struct{}

// With returns ctx carrying h for one aztables call.
func With(ctx context.Context, h *Holder) context.Context {
	return context.WithValue(ctx, holderKey{}, h)
}

func from(ctx context.Context) *Holder {
	h, _ := ctx.Value(holderKey{}).(*Holder)
	return h
}

type counterKey struct{}

// Counting returns ctx whose calls count their swaps in n, so that tests
// fail when the fast path is silently not taken.
func Counting(ctx context.Context, n *atomic.Int64) context.Context {
	return context.WithValue(ctx, counterKey{}, n)
}

func count(ctx context.Context) {
	if n, ok := ctx.Value(counterKey{}).(*atomic.Int64); ok {
		n.Add(1)
	}
}
