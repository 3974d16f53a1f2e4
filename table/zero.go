package table

import "github.com/tablekit/tablekit/internal/errmap"

// Zero values and nil handles are programming errors, but they must be
// reported as errors, never as panics deep inside aztables: these checks
// run first in every method that would touch what New or NewService builds.

var (
	errZeroTable   = errmap.Invalid("", "table", "zero or nil Table (open tables with table.New or Wrap)")
	errZeroService = errmap.Invalid("", "service", "zero or nil Service (make it with table.NewService or a sibling)")
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
	if s == nil || s.core().Raw() == nil || s.core().Conn() == nil {
		return errZeroService
	}
	return nil
}

// errETagRequired: Update or Delete got an empty ETag.
var errETagRequired = errmap.Invalid("", "ETag", "required (pass the entity's ETag, or table.AnyETag for an unconditional write)")
