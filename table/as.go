package table

// As returns a handle on the same table (same client, pool and tracing) that
// reads and writes U instead of T. It checks U's mapping like New and does
// no I/O.
func As[U, T any](t *Table[T]) (*Table[U], error) {
	if err := t.ready(); err != nil {
		return nil, err
	}
	plan, err := planOf[U]()
	if err != nil {
		return nil, err
	}
	// Everything but the plan is the table's: its client and data path too.
	return (*Table[U])(t.handle().WithPlan(plan)), nil
}
