package fastpath

import (
	"fmt"

	"github.com/tablekit/tablekit/internal/wire"
)

// Entities calls each with every entity of a query page as the service sent
// it ({"odata.metadata":...,"value":[{...},...]}): slices of page, so no
// entity is copied before it is decoded. It stops at each's first error.
func Entities(page []byte, each func(entity []byte) error) error {
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
			start := s.Pos
			if err := s.Skip(); err != nil {
				return err
			}
			return each(s.Data[start:s.Pos])
		})
	})
	if err == nil {
		err = s.End()
	}
	return err
}
