package table

import "fmt"

// Zero values and nil handles are programming errors, but they must be
// reported as errors, never as panics deep inside aztables: these checks
// run first in every method that would touch what New or NewService builds.

var (
	errZeroTable   = fmt.Errorf("%w: zero or nil Table (open tables with table.New, Wrap or NewFromSASURL)", ErrInvalidOptions)
	errNilClient   = fmt.Errorf("%w: nil aztables client", ErrInvalidOptions)
	errZeroService = fmt.Errorf("%w: zero or nil Service (make it with table.NewService or a sibling)", ErrInvalidOptions)
)

// ready reports a Table that New did not make.
func (t *Table[T]) ready() error {
	if !t.handle().Usable() {
		return errZeroTable
	}
	return nil
}

// ready reports a Service that NewService did not make.
func (s *Service) ready() error {
	if s == nil || s.raw == nil || s.conn == nil {
		return errZeroService
	}
	return nil
}
