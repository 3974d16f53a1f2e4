package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync"

	"github.com/tablekit/tablekit/internal/wire"
)

// compare_merge.go is verify's comparison of two key-ordered streams: the
// rows of each side, the merge by key and the tally of what differs.

// row is one entity of a side: its keys and properties, as the service's
// JSON (a table: decoded only when it differs) or decoded (a file).
type row struct {
	PartitionKey, RowKey string
	raw                  json.RawMessage
	props                map[string]any
}

func compareRows(a, b *row) int {
	return compareKeyStrings(a.PartitionKey, a.RowKey, b.PartitionKey, b.RowKey)
}

// tally counts what verify finds and keeps the first show differences by
// key; mu guards it when segments are compared at once.
type tally struct {
	mu   sync.Mutex
	vs   verifyStats
	show int
}

func (t *tally) note(kind string, r *row, detail string) {
	if t.show == 0 {
		return
	}
	d := difference{r.PartitionKey, r.RowKey, kind, detail}
	i, _ := slices.BinarySearchFunc(t.vs.First, d, func(x, y difference) int {
		return compareKeyStrings(x.PK, x.RK, y.PK, y.RK)
	})
	if i < t.show {
		t.vs.First = slices.Insert(t.vs.First, i, d)
		if len(t.vs.First) > t.show {
			t.vs.First = t.vs.First[:t.show]
		}
	}
}

// decodeRow gives a row's properties, decoding a table's JSON when needed.
func decodeRow(t *dynTable, r *row) (map[string]any, error) {
	if r.props != nil || r.raw == nil {
		return r.props, nil
	}
	b := wire.AppendString([]byte(`{"PartitionKey":`), r.PartitionKey)
	b = append(b, `,"RowKey":`...)
	b = wire.AppendString(b, r.RowKey)
	if p := bytes.TrimSpace(r.raw); len(p) > 2 {
		b = append(append(b, ','), p[1:]...)
	} else {
		b = append(b, '}')
	}
	e, err := t.Unmarshal(b)
	if err != nil {
		return nil, fmt.Errorf("%q, %q: %w", r.PartitionKey, r.RowKey, err)
	}
	r.props = e.Properties
	return r.props, nil
}

// compareStreams merges two streams in key order into the tally; done is
// called after each key, when everything up to it is compared. mu, when
// set, guards the tally and done against other segments.
func compareStreams(src, dst iter.Seq2[row, error], ta *tally, mu *sync.Mutex, decode func(*row) (map[string]any, error), done func(*row) error) error {
	nextS, stopS := iter.Pull2(src)
	defer stopS()
	nextD, stopD := iter.Pull2(dst)
	defer stopD()
	pull := func(next func() (row, error, bool), side string, prev *row) (*row, error) {
		r, err, ok := next()
		if !ok {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", side, err)
		}
		if prev != nil {
			switch c := compareRows(prev, &r); {
			case c == 0:
				return nil, fmt.Errorf("%s: (%q, %q) came twice", side, r.PartitionKey, r.RowKey)
			case c > 0:
				return nil, fmt.Errorf("%s: (%q, %q) came after (%q, %q): not in key order", side, r.PartitionKey, r.RowKey, prev.PartitionKey, prev.RowKey)
			}
		}
		return &r, nil
	}
	lock := func() {
		if mu != nil {
			mu.Lock()
		}
	}
	unlock := func() {
		if mu != nil {
			mu.Unlock()
		}
	}
	a, err := pull(nextS, "source", nil)
	if err != nil {
		return err
	}
	b, err := pull(nextD, "target", nil)
	if err != nil {
		return err
	}
	for a != nil || b != nil {
		c := 0
		switch {
		case a == nil:
			c = 1
		case b == nil:
			c = -1
		default:
			c = compareRows(a, b)
		}
		// What differs is found outside the lock; counted inside it.
		var ds []propDiff
		if c == 0 && (a.raw == nil || b.raw == nil || !bytes.Equal(a.raw, b.raw)) {
			pa, err := decode(a)
			if err != nil {
				return fmt.Errorf("source: %w", err)
			}
			pb, err := decode(b)
			if err != nil {
				return fmt.Errorf("target: %w", err)
			}
			ds = diffProps(pa, pb)
		}
		k := a
		lock()
		vs := &ta.vs
		switch {
		case c < 0:
			vs.Source++
			vs.Missing++
			ta.note("missing", a, "")
		case c > 0:
			vs.Target++
			vs.Extra++
			ta.note("extra", b, "")
			k = b
		default:
			vs.Source++
			vs.Target++
			if len(ds) > 0 {
				vs.Changed++
				kind := "changed"
				if slices.ContainsFunc(ds, propDiff.typeChanged) {
					kind = "type"
					vs.Retyped++
				}
				var sb strings.Builder
				for _, d := range ds {
					sb.WriteString("  ")
					sb.WriteString(d.String())
				}
				ta.note(kind, a, sb.String())
			}
		}
		err := done(k)
		unlock()
		if err != nil {
			return err
		}
		if c <= 0 {
			if a, err = pull(nextS, "source", k); err != nil {
				return err
			}
		}
		if c >= 0 {
			if b, err = pull(nextD, "target", k); err != nil {
				return err
			}
		}
	}
	return nil
}
