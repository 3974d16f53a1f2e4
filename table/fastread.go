package table

import (
	"context"
	"errors"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"

	"github.com/tablekit/tablekit/internal/fastpath"
)

// getEntity reads one entity's JSON: the downloaded body itself when the
// pipeline has the fast path, aztables' re-encoding of it otherwise.
func (t *Table[T]) getEntity(ctx context.Context, pk, rk string) ([]byte, azcore.ETag, error) {
	h := &fastpath.Holder{Kind: fastpath.Get}
	resp, err := t.client.GetEntity(fastpath.With(ctx, h), pk, rk, nil)
	if err != nil {
		return nil, "", err
	}
	if h.Swapped {
		return h.In, resp.ETag, nil
	}
	return resp.Value, resp.ETag, nil
}

// errStop ends a page scan at its first entity.
var errStop = errors.New("stop")

// firstOf decodes the first entity of a query page; ok is false when the
// page has none.
func (t *Table[T]) firstOf(h *fastpath.Holder, entities [][]byte) (e T, ok bool, err error) {
	if !h.Swapped {
		if len(entities) == 0 {
			return e, false, nil
		}
		e, err = t.Unmarshal(entities[0])
		return e, true, err
	}
	var derr error
	err = fastpath.Entities(h.In, func(raw []byte) error {
		e, derr = t.Unmarshal(raw)
		ok = true
		return errStop
	})
	if ok {
		return e, true, derr
	}
	return e, false, err
}
