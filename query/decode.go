package query

import (
	"errors"
	"reflect"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/internal/codec"
	"github.com/tablekit/tablekit/internal/core"
)

// fill decodes the entities of a page's body into page, each where it
// lies, in one pass, with the plan of the table's entity type. top, the
// entities asked for, sizes the page.
func (p *plan[T]) fill(page *rawPage[T], body []byte, top int) error {
	cp := (*core.Table)(p.t).Plan()
	page.entities = make([]T, 0, top)
	page.keys = make([]keyPair, 0, top)
	err := codec.PageEntitiesAt(body, func(rest []byte) (int, error) {
		var zero T
		page.entities = append(page.entities, zero)
		v := reflect.ValueOf(&page.entities[len(page.entities)-1]).Elem()
		n, err := cp.DecodeAt(rest, v)
		if err != nil {
			page.entities = page.entities[:len(page.entities)-1]
			return n, err
		}
		pk, rk := cp.Keys(v)
		page.keys = append(page.keys, keyPair{pk, rk})
		return n, nil
	})
	if err != nil && !errors.Is(err, tablekit.ErrDecode) {
		// The page itself is malformed.
		return &tablekit.DecodeError{Reason: "query page: " + err.Error(), Err: err}
	}
	return err
}
