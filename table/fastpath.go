package table

import (
	"context"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"

	"github.com/tablekit/tablekit/internal/fastpath"
	"github.com/tablekit/tablekit/internal/link"
)

// Package batch asks through link whether a table's pipeline has the fast
// path and which endpoint aztables builds its URLs from (the service URL
// with the SAS query when there is one), so that it can write the $batch
// body itself.
func init() {
	link.SetFastLookup(func(t any) (string, bool) {
		if tt, ok := t.(interface{ fastEndpoint() (string, bool) }); ok {
			return tt.fastEndpoint()
		}
		return "", false
	})
}

func (t *Table[T]) fastEndpoint() (string, bool) { return t.azURL, t.fast }

// fastOn reports whether ClientOptions installs the fast path's policy.
func (o *Options) fastOn() bool { return o == nil || !o.NoFastPath }

// writeBody returns the context and entity to hand aztables for a write of
// body: on the fast path a placeholder, with body in the context for the
// policy to send; otherwise body itself.
func (t *Table[T]) writeBody(ctx context.Context, body []byte, e *T) (context.Context, []byte) {
	if !t.fast {
		return ctx, body
	}
	pk, rk := t.keys(e)
	return fastpath.With(ctx, &fastpath.Holder{Kind: fastpath.Write, Out: body}), fastpath.Placeholder(pk, rk)
}

// setInserter lets a fast-path table insert without AddEntity.
func (t *Table[T]) setInserter() {
	if t.fast {
		t.ins, _ = fastpath.NewInserter(t.client, t.azURL, t.name)
	}
}

// insert adds body, e's encoding: sent as it is through the client's
// pipeline on the fast path, through AddEntity otherwise.
func (t *Table[T]) insert(ctx context.Context, body []byte, e *T) (azcore.ETag, error) {
	if t.ins != nil {
		return t.ins.Insert(ctx, body)
	}
	wctx, sent := t.writeBody(ctx, body, e)
	resp, err := t.client.AddEntity(wctx, sent, nil)
	return resp.ETag, err
}
