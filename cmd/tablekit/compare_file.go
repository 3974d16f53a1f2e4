package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"iter"

	"github.com/tablekit/tablekit/table"
)

// A file's entities come in any order (an export without --ordered), so
// verify sorts them (compare_spillsort.go): memory stays bounded by one run.

// sortedFile reads an export file (JSON Lines or CSV) and yields the
// entities keep accepts in key order, sorted in runs within lim. A key
// given twice keeps its last line, as import does. A line that is not an
// entity stops it with the line's number.
func sortedFile(t *dynTable, path, format string, delim rune, keep func(*table.Entity) bool, lim runLimits) iter.Seq2[table.Entity, error] {
	return func(yield func(table.Entity, error) bool) {
		in, err := openInput(path, nil, nil)
		if err != nil {
			yield(table.Entity{}, err)
			return
		}
		defer in.close()
		next := records(t, in.r, format, delim)
		kept := func(yield func(table.Entity, error) bool) {
			for {
				rec, err := next()
				if errors.Is(err, io.EOF) {
					return
				}
				if err == nil && rec.rej != nil {
					err = fmt.Errorf("%s line %d: %s", path, rec.line, rec.rej.Reason)
				}
				if err != nil {
					yield(table.Entity{}, err)
					return
				}
				if keep(&rec.ent.ent) && !yield(rec.ent.ent, nil) {
					return
				}
			}
		}
		lastOfEqual(entitySpill(t).sorted(kept, lim), yield)
	}
}

// lastOfEqual yields the last of each run of entities with equal keys.
func lastOfEqual(sorted iter.Seq2[table.Entity, error], yield func(table.Entity, error) bool) {
	var held *table.Entity
	for e, err := range sorted {
		if err != nil {
			yield(table.Entity{}, err)
			return
		}
		if held != nil && compareKeys(held, &e) != 0 && !yield(*held, nil) {
			return
		}
		held = &e
	}
	if held != nil {
		yield(*held, nil)
	}
}

func records(t *dynTable, r io.Reader, format string, delim rune) func() (inputRecord, error) {
	if format == formatCSV {
		return csvRecords(t, r, delim)
	}
	return jsonlRecords(t, nil, r, nil)
}

// entitySpill writes a file's entities to runs as JSON Lines.
func entitySpill(t *dynTable) spiller[table.Entity] {
	lw := lineWriter{t: t}
	return spiller[table.Entity]{
		cmp:  compareKeys,
		size: func(e *table.Entity) int { return approxSize(*e) },
		write: func(w *bufio.Writer, e *table.Entity) error {
			b, err := lw.line(*e)
			if err != nil {
				return fmt.Errorf("%q, %q: %w", e.PartitionKey, e.RowKey, err)
			}
			_, err = w.Write(b)
			return err
		},
		read: func(f io.Reader) func() (table.Entity, error) {
			next := jsonlRecords(t, nil, f, nil)
			return func() (table.Entity, error) {
				rec, err := next()
				if err == nil && rec.rej != nil {
					err = fmt.Errorf("sorted run line %d: %s", rec.line, rec.rej.Reason)
				}
				if err != nil {
					return table.Entity{}, err
				}
				return rec.ent.ent, nil
			}
		},
	}
}
