package table

import (
	"context"
	"net/url"
	"strings"

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

// parseURLEndpoint is the endpoint aztables makes of a table URL (its
// parseURL, v1.4.1): the URL without the table's segment, and "/?" and the
// re-encoded query when there is one.
func parseURLEndpoint(u *url.URL) string {
	ep := u.Scheme + "://" + u.Host
	if i := strings.LastIndexByte(u.Path, '/'); i > 0 {
		ep += u.Path[:i]
	}
	if q := u.Query(); len(q) > 0 {
		ep += "/?" + q.Encode()
	}
	return ep
}

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
