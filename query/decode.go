package query

import (
	"errors"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/internal/codec"
)

// fill decodes the entities of a page's body into page, each where it
// lies, in one pass. top, the entities asked for, sizes the page.
func (p *plan[T]) fill(page *rawPage[T], body []byte, top int) error {
	page.entities = make([]T, 0, top)
	page.keys = make([]keyPair, 0, top)
	err := codec.PageEntitiesAt(body, func(rest []byte) (int, error) {
		e, n, err := codec.UnmarshalAt[T](rest)
		if err == nil {
			p.keep(page, e)
		}
		return n, err
	})
	if err != nil && !errors.Is(err, tablekit.ErrDecode) {
		// The page itself is malformed.
		return &tablekit.DecodeError{Reason: "query page: " + err.Error(), Err: err}
	}
	return err
}

func (p *plan[T]) keep(page *rawPage[T], e T) {
	pk, rk := codec.Keys(&e)
	page.entities = append(page.entities, e)
	page.keys = append(page.keys, keyPair{pk, rk})
}
