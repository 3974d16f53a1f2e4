package main

import (
	"bufio"
	"context"
	varint "encoding/binary" // the test helper binary() shares the package
	"errors"
	"fmt"
	"io"
	"iter"

	"github.com/tablekit/tablekit/query"
	"github.com/tablekit/tablekit/table"
)

// compare_side.go is how verify reads one side of a segment in key order:
// Table Storage sends it so; what Cosmos DB sends, in no key order, is
// sorted (compare_spillsort.go), in runs written as rowSpill's records.

// sideOf is a table verify compares, and whether its backend returns
// entities in key order.
type sideOf struct {
	t       *table.Table[table.RawEntity]
	ordered bool
}

// rows reads the rows of filter f in key order; lim bounds a sort's run.
func (s sideOf) rows(ctx context.Context, f query.Filter, lim runLimits) iter.Seq2[row, error] {
	if s.ordered {
		return pages(ctx, s.t, f)
	}
	return rowSpill.sorted(unordered(ctx, s.t, f), lim)
}

// pages reads the rows of filter f in key order, a page ahead of the
// caller.
func pages(ctx context.Context, t *table.Table[table.RawEntity], f query.Filter) iter.Seq2[row, error] {
	return func(yield func(row, error) bool) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		type page struct {
			ents []table.RawEntity
			err  error
		}
		// Unbuffered: the next page is fetched while the caller takes
		// this one, so a side holds two pages at most.
		ch := make(chan page)
		go func() {
			defer close(ch)
			for p, err := range query.New(t).Where(f).PageSize(query.MaxPageSize).Pages(ctx) {
				select {
				case ch <- page{p.Entities, err}:
				case <-ctx.Done():
					return
				}
				if err != nil {
					return
				}
			}
		}()
		for p := range ch {
			if p.err != nil {
				yield(row{}, p.err)
				return
			}
			for _, e := range p.ents {
				if !yield(rawRow(e), nil) {
					return
				}
			}
		}
		// A reader stopped by the context is not the end of the segment:
		// the rest of the other side is not missing.
		if err := ctx.Err(); err != nil {
			yield(row{}, err)
		}
	}
}

// unordered reads the rows of filter f in the order the service sends them.
func unordered(ctx context.Context, t *table.Table[table.RawEntity], f query.Filter) iter.Seq2[row, error] {
	return func(yield func(row, error) bool) {
		for e, err := range query.New(t).Where(f).PageSize(query.MaxPageSize).All(ctx) {
			if !yield(rawRow(e), err) || err != nil {
				return
			}
		}
	}
}

func rawRow(e table.RawEntity) row {
	return row{PartitionKey: e.PartitionKey, RowKey: e.RowKey, raw: e.Properties}
}

// rowSpill writes a table's rows to runs as three length-prefixed byte
// strings each: the keys and the service's JSON, unchanged (its length
// plus one; 0 for none).
var rowSpill = spiller[row]{
	cmp:  compareRows,
	size: func(r *row) int { return 64 + len(r.PartitionKey) + len(r.RowKey) + len(r.raw) },
	write: func(w *bufio.Writer, r *row) error {
		var n [varint.MaxVarintLen64]byte
		for _, b := range [][]byte{[]byte(r.PartitionKey), []byte(r.RowKey)} {
			w.Write(n[:varint.PutUvarint(n[:], uint64(len(b)))])
			w.Write(b)
		}
		l := uint64(0)
		if r.raw != nil {
			l = uint64(len(r.raw)) + 1
		}
		w.Write(n[:varint.PutUvarint(n[:], l)])
		_, err := w.Write(r.raw)
		return err
	},
	read: func(f io.Reader) func() (row, error) {
		br := bufio.NewReaderSize(f, 64<<10)
		// field reads a length-prefixed byte string; n is its length
		// plus one, 0 for none, when plus is set.
		field := func(plus bool) ([]byte, error) {
			n, err := varint.ReadUvarint(br)
			if err != nil {
				return nil, err
			}
			if plus {
				if n == 0 {
					return nil, nil
				}
				n--
			}
			b := make([]byte, n)
			if _, err := io.ReadFull(br, b); err != nil {
				return nil, noEOF(err)
			}
			return b, nil
		}
		return func() (row, error) {
			pk, err := field(false)
			if errors.Is(err, io.EOF) {
				return row{}, err // the run's end, between two rows
			}
			var rk []byte
			if err == nil {
				rk, err = field(false)
			}
			if err == nil {
				var r row
				if r.raw, err = field(true); err == nil {
					r.PartitionKey, r.RowKey = string(pk), string(rk)
					return r, nil
				}
			}
			return row{}, fmt.Errorf("sorted run: %w", noEOF(err))
		}
	},
}

// noEOF is err, except that an end of file inside a row is unexpected.
func noEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}
