package main

import (
	"bufio"
	"container/heap"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"slices"

	"github.com/tablekit/tablekit/table"
)

// A file's entities come in any order (an export without --ordered), so
// verify sorts them: runs of at most runEntities entities or runBytes
// (estimated) are sorted in memory and, when there is more than one,
// written to temporary files and merged. Memory stays bounded by one run.
var (
	runEntities = 100_000
	runBytes    = 64 << 20
)

// sortedFile reads an export file (JSON Lines or CSV) and yields the
// entities keep accepts in key order. A key given twice keeps its last
// line, as import does. A line that is not an entity stops it with the
// line's number.
func sortedFile(t *dynTable, path, format string, delim rune, keep func(*table.Entity) bool) iter.Seq2[table.Entity, error] {
	return func(yield func(table.Entity, error) bool) {
		dir := ""
		defer func() {
			if dir != "" {
				os.RemoveAll(dir)
			}
		}()
		f, err := os.Open(path)
		if err != nil {
			yield(table.Entity{}, err)
			return
		}
		defer f.Close()
		next := records(t, f, format, delim)
		var run []table.Entity
		var runs []string
		size := 0
		flush := func() error {
			sortRun(run)
			if dir == "" {
				if dir, err = os.MkdirTemp("", "tablekit-verify"); err != nil {
					return err
				}
			}
			p := fmt.Sprintf("%s/run%d.jsonl", dir, len(runs))
			if err := writeRun(p, run); err != nil {
				return err
			}
			runs = append(runs, p)
			run, size = run[:0], 0
			return nil
		}
		for {
			rec, err := next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err == nil && rec.rej != nil {
				err = fmt.Errorf("%s line %d: %s", path, rec.line, rec.rej.Reason)
			}
			if err != nil {
				yield(table.Entity{}, err)
				return
			}
			if !keep(&rec.ent.ent) {
				continue
			}
			run = append(run, rec.ent.ent)
			size += approxSize(rec.ent.ent)
			if len(run) >= runEntities || size >= runBytes {
				if err := flush(); err != nil {
					yield(table.Entity{}, err)
					return
				}
			}
		}
		if len(runs) == 0 {
			sortRun(run)
			for i := range run {
				if i+1 < len(run) && compareKeys(&run[i], &run[i+1]) == 0 {
					continue // the later line wins
				}
				if !yield(run[i], nil) {
					return
				}
			}
			return
		}
		if len(run) > 0 {
			if err := flush(); err != nil {
				yield(table.Entity{}, err)
				return
			}
		}
		mergeRuns(t, runs, yield)
	}
}

func records(t *dynTable, r io.Reader, format string, delim rune) func() (inputRecord, error) {
	if format == formatCSV {
		return csvRecords(t, r, delim)
	}
	return jsonlRecords(t, r)
}

// sortRun sorts by key, keeping the file's order among equal keys.
func sortRun(run []table.Entity) {
	slices.SortStableFunc(run, func(a, b table.Entity) int { return compareKeys(&a, &b) })
}

func writeRun(path string, run []table.Entity) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var lw lineWriter
	for _, e := range run {
		b, err := lw.line(e)
		if err != nil {
			f.Close()
			return fmt.Errorf("%q, %q: %w", e.PartitionKey, e.RowKey, err)
		}
		w.Write(b)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// runHead is the next entity of a sorted run.
type runHead struct {
	ent  table.Entity
	run  int
	next func() (inputRecord, error)
}

type runHeap []*runHead

func (h runHeap) Len() int { return len(h) }
func (h runHeap) Less(i, j int) bool {
	if c := compareKeys(&h[i].ent, &h[j].ent); c != 0 {
		return c < 0
	}
	return h[i].run < h[j].run // the earlier lines first: the last one wins
}
func (h runHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *runHeap) Push(x any)   { *h = append(*h, x.(*runHead)) }
func (h *runHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// mergeRuns yields the entities of sorted run files in key order, the
// last of equal keys only.
func mergeRuns(t *dynTable, runs []string, yield func(table.Entity, error) bool) {
	h := runHeap{}
	advance := func(r *runHead) (bool, error) {
		rec, err := r.next()
		if errors.Is(err, io.EOF) {
			return false, nil
		}
		if err == nil && rec.rej != nil {
			err = fmt.Errorf("sorted run line %d: %s", rec.line, rec.rej.Reason)
		}
		if err != nil {
			return false, err
		}
		r.ent = rec.ent.ent
		return true, nil
	}
	for i, p := range runs {
		f, err := os.Open(p)
		if err != nil {
			yield(table.Entity{}, err)
			return
		}
		defer f.Close()
		r := &runHead{run: i, next: jsonlRecords(t, f)}
		ok, err := advance(r)
		if err != nil {
			yield(table.Entity{}, err)
			return
		}
		if ok {
			h = append(h, r)
		}
	}
	heap.Init(&h)
	for h.Len() > 0 {
		r := h[0]
		ent := r.ent
		ok, err := advance(r)
		if err != nil {
			yield(table.Entity{}, err)
			return
		}
		if ok {
			heap.Fix(&h, 0)
		} else {
			heap.Pop(&h)
		}
		if h.Len() > 0 && compareKeys(&ent, &h[0].ent) == 0 {
			continue // a later line has the same key
		}
		if !yield(ent, nil) {
			return
		}
	}
}
