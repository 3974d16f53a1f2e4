package query

import (
	"errors"

	"github.com/tablekit/tablekit/internal/codec"
	"github.com/tablekit/tablekit/internal/fastpath"
)

// fill decodes a page's entities into page: from the body the fast path
// kept (each entity decoded where it lies, in one pass), or from
// aztables' re-encoded entities when the client has no fast path.
// top, the entities asked for, sizes the page.
func (p *plan[T]) fill(page *rawPage[T], h *fastpath.Holder, entities [][]byte, top int) error {
	if !h.Swapped {
		page.entities = make([]T, 0, len(entities))
		page.keys = make([]keyPair, 0, len(entities))
		for _, raw := range entities {
			if err := p.add(page, raw); err != nil {
				return err
			}
		}
		return nil
	}
	page.entities = make([]T, 0, top)
	page.keys = make([]keyPair, 0, top)
	err := fastpath.EntitiesAt(h.In, func(rest []byte) (int, error) {
		e, n, err := codec.UnmarshalAt[T](rest)
		if err == nil {
			p.keep(page, e)
		}
		return n, err
	})
	if err != nil && !errors.Is(err, codec.ErrDecode) {
		// The page itself is malformed, as aztables would have reported.
		return &codec.DecodeError{Reason: "query page: " + err.Error(), Err: err}
	}
	return err
}

func (p *plan[T]) add(page *rawPage[T], raw []byte) error {
	e, err := p.t.Unmarshal(raw)
	if err == nil {
		p.keep(page, e)
	}
	return err
}

func (p *plan[T]) keep(page *rawPage[T], e T) {
	pk, rk := codec.Keys(&e)
	page.entities = append(page.entities, e)
	page.keys = append(page.keys, keyPair{pk, rk})
}
