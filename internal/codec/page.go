package codec

import (
	"bytes"
	"fmt"

	"github.com/tablekit/tablekit/internal/wire"
)

// PageEntities calls each with every entity of a query page as the service
// sent it ({"odata.metadata":...,"value":[{...},...]}): slices of page, so
// no entity is copied before it is decoded. It stops at each's first error.
func PageEntities(page []byte, each func(entity []byte) error) error {
	return values(page, func(s *wire.Scanner) error {
		start := s.Pos
		if err := s.Skip(); err != nil {
			return err
		}
		return each(s.Data[start:s.Pos])
	})
}

// PageEntitiesAt is PageEntities for a decoder that reads each entity
// where it lies, in one pass over the page: each gets the page from the
// entity on and returns the entity's length. Errors are PageEntities'
// errors: a page malformed at an entity fails as the page, before the
// entity's own error. each may have read the entity that fails the page:
// after an error, discard what it collected.
func PageEntitiesAt(page []byte, each func(rest []byte) (int, error)) error {
	return values(page, func(s *wire.Scanner) error {
		start := s.Pos
		n, err := each(s.Data[start:])
		if err != nil || nested(s.Data[start+1:start+n]) {
			// Skip reads the entity as PageEntities does: its syntax error
			// and its nesting limit (counted from the page) come first.
			s.Pos = start
			if serr := s.Skip(); serr != nil {
				return serr
			}
			return err
		}
		s.Pos = start + n
		return nil
	})
}

// values walks the entities of a query page: entity is called with the
// scanner at each one (an object), which it must read.
func values(page []byte, entity func(s *wire.Scanner) error) error {
	s := wire.Scanner{Data: page}
	err := s.Object(func(name []byte) error {
		if string(name) != "value" {
			return s.Skip()
		}
		if s.Peek() != '[' {
			return fmt.Errorf("query page: value is not an array")
		}
		return s.Array(func() error {
			if s.Peek() != '{' {
				return fmt.Errorf("query page: an entity is not an object")
			}
			return entity(&s)
		})
	})
	if err == nil {
		err = s.End()
	}
	return err
}

// nested reports an entity that may hold an object or array (the service
// never sends one): only then can the page's depth matter.
func nested(entity []byte) bool {
	return bytes.IndexByte(entity, '{') >= 0 || bytes.IndexByte(entity, '[') >= 0
}
