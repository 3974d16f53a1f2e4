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
)

// compare_spillsort.go puts in key order what comes in none (an export file
// without --ordered, a Cosmos DB table) with bounded memory: runs are
// sorted in memory and, when there is more than one, written to temporary
// files and merged, fanIn at a time.

// runLimits bounds one run held in memory: its items, and their estimated
// bytes.
type runLimits struct{ items, bytes int }

// oneSort is the run of a sort that runs alone; sorts that run at once
// share it (runLimits.share).
var oneSort = runLimits{items: 100_000, bytes: 64 << 20}

// fanIn is how many runs a merge reads at once. A sort keeps fewer than
// fanIn runs of each size, merging fanIn of one size into one of the next,
// so its open files and their buffers stay bounded however long its input,
// and an item is written about log_fanIn(runs) times.
var fanIn = 32

// spilled is a run written to a file; level is how many merges made it.
type spilled struct {
	path  string
	level int
}

// share is one of n sorts' part of l, never below a useful run.
func (l runLimits) share(n int) runLimits {
	return runLimits{items: max(l.items/n, 1000), bytes: max(l.bytes/n, 1<<20)}
}

// spiller is how a sort orders its items and writes them to a run file
// and reads them back.
type spiller[T any] struct {
	cmp   func(a, b *T) int
	size  func(*T) int
	write func(w *bufio.Writer, v *T) error
	read  func(f io.Reader) func() (T, error) // io.EOF after the last item; buffers f
}

// sorted yields src's items in cmp order, equal items in src's order.
func (s spiller[T]) sorted(src iter.Seq2[T, error], lim runLimits) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		dir := ""
		defer func() {
			if dir != "" {
				os.RemoveAll(dir)
			}
		}()
		var run []T
		var runs []spilled // in the input's order: equal items keep it
		size, files := 0, 0
		sortRun := func() { slices.SortStableFunc(run, func(a, b T) int { return s.cmp(&a, &b) }) }
		newFile := func() (string, error) {
			if dir == "" {
				var err error
				if dir, err = os.MkdirTemp("", "tablekit-sort"); err != nil {
					return "", err
				}
			}
			files++
			return fmt.Sprintf("%s/run%d", dir, files), nil
		}
		flush := func() error {
			sortRun()
			p, err := newFile()
			if err != nil {
				return err
			}
			if err := s.writeRun(p, run); err != nil {
				return err
			}
			runs = append(runs, spilled{p, 0})
			clear(run)
			run, size = run[:0], 0
			// The last fanIn runs, when of one size, become one run.
			for n := len(runs); n >= fanIn && runs[n-fanIn].level == runs[n-1].level; n = len(runs) {
				if p, err = newFile(); err != nil {
					return err
				}
				tail := runs[n-fanIn:]
				if err := s.mergeTo(p, tail); err != nil {
					return err
				}
				for _, r := range tail {
					os.Remove(r.path)
				}
				runs = append(runs[:n-fanIn], spilled{p, tail[0].level + 1})
			}
			return nil
		}
		for v, err := range src {
			if err == nil {
				run = append(run, v)
				if size += s.size(&v); len(run) >= lim.items || size >= lim.bytes {
					err = flush()
				}
			}
			if err != nil {
				yield(zero, err)
				return
			}
		}
		if len(runs) == 0 {
			sortRun()
			for i := range run {
				if !yield(run[i], nil) {
					return
				}
			}
			return
		}
		if len(run) > 0 {
			if err := flush(); err != nil {
				yield(zero, err)
				return
			}
		}
		s.merge(runs, yield)
	}
}

func (s spiller[T]) writeRun(path string, run []T) error {
	return s.writeFile(path, func(write func(*T) error) error {
		for i := range run {
			if err := write(&run[i]); err != nil {
				return err
			}
		}
		return nil
	})
}

// mergeTo merges runs into one run file.
func (s spiller[T]) mergeTo(path string, runs []spilled) error {
	return s.writeFile(path, func(write func(*T) error) error {
		var err error
		s.merge(runs, func(v T, e error) bool {
			if err = e; err == nil {
				err = write(&v)
			}
			return err == nil
		})
		return err
	})
}

// writeFile creates path and writes to it what each calls write with.
func (s spiller[T]) writeFile(path string, each func(write func(*T) error) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 256<<10)
	err = each(func(v *T) error { return s.write(w, v) })
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// runHead is the next item of a sorted run.
type runHead[T any] struct {
	v    T
	run  int
	next func() (T, error)
}

// runHeap orders run heads by item, then by run: equal items come in the
// order they were read.
type runHeap[T any] struct {
	heads []*runHead[T]
	cmp   func(a, b *T) int
}

func (h *runHeap[T]) Len() int { return len(h.heads) }
func (h *runHeap[T]) Less(i, j int) bool {
	if c := h.cmp(&h.heads[i].v, &h.heads[j].v); c != 0 {
		return c < 0
	}
	return h.heads[i].run < h.heads[j].run
}
func (h *runHeap[T]) Swap(i, j int) { h.heads[i], h.heads[j] = h.heads[j], h.heads[i] }
func (h *runHeap[T]) Push(x any)    { h.heads = append(h.heads, x.(*runHead[T])) }
func (h *runHeap[T]) Pop() any {
	x := h.heads[len(h.heads)-1]
	h.heads = h.heads[:len(h.heads)-1]
	return x
}

// merge yields the items of sorted run files in order, equal items in the
// order of their runs.
func (s spiller[T]) merge(runs []spilled, yield func(T, error) bool) {
	var zero T
	h := &runHeap[T]{cmp: s.cmp}
	advance := func(r *runHead[T]) (bool, error) {
		v, err := r.next()
		if errors.Is(err, io.EOF) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		r.v = v
		return true, nil
	}
	for i, sp := range runs {
		f, err := os.Open(sp.path)
		if err != nil {
			yield(zero, err)
			return
		}
		defer f.Close()
		r := &runHead[T]{run: i, next: s.read(f)}
		ok, err := advance(r)
		if err != nil {
			yield(zero, err)
			return
		}
		if ok {
			h.heads = append(h.heads, r)
		}
	}
	heap.Init(h)
	for h.Len() > 0 {
		r := h.heads[0]
		v := r.v
		ok, err := advance(r)
		if err != nil {
			yield(zero, err)
			return
		}
		if ok {
			heap.Fix(h, 0)
		} else {
			heap.Pop(h)
		}
		if !yield(v, nil) {
			return
		}
	}
}
