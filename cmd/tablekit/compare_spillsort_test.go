package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// spillRows is rows in no key order: keys whose UTF-16 order is not their
// byte order, equal keys (kept in their order), and JSON absent, empty and
// with escapes.
func spillRows() []row {
	var rows []row
	for i := range 40 {
		raw := json.RawMessage(fmt.Sprintf(`{"N":%d,"S":"a\"b\u00e9"}`, i))
		switch i % 5 {
		case 0:
			raw = nil
		case 1:
			raw = json.RawMessage(`{}`)
		}
		pk := []string{"a", "\uffff", "\U00010000", "B", ""}[i%5]
		rows = append(rows, row{PartitionKey: pk, RowKey: fmt.Sprintf("%02d", i%13), raw: raw})
	}
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
	return rows
}

func seqOf[T any](items []T, err error) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		for _, v := range items {
			if !yield(v, nil) {
				return
			}
		}
		if err != nil {
			var zero T
			yield(zero, err)
		}
	}
}

func TestRowSpillSorted(t *testing.T) {
	in := spillRows()
	want := slices.Clone(in)
	slices.SortStableFunc(want, func(a, b row) int { return compareRows(&a, &b) })
	if compareKeyStrings("\U00010000", "", "\uffff", "") >= 0 {
		t.Fatal("the test's keys do not tell UTF-16 order from byte order")
	}
	for _, tt := range []struct {
		name string
		lim  runLimits
	}{
		{"in memory", runLimits{items: 1000, bytes: 1 << 20}},
		{"runs of 3", runLimits{items: 3, bytes: 1 << 20}},
		{"runs by size", runLimits{items: 1000, bytes: 300}},
		{"runs of 1", runLimits{items: 1, bytes: 1 << 20}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tmp := t.TempDir()
			t.Setenv("TMPDIR", tmp)
			var got []row
			for r, err := range rowSpill.sorted(seqOf(in, nil), tt.lim) {
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, r)
			}
			if len(got) != len(want) {
				t.Fatalf("got %d rows, want %d", len(got), len(want))
			}
			for i := range want {
				g, w := got[i], want[i]
				if g.PartitionKey != w.PartitionKey || g.RowKey != w.RowKey || !bytes.Equal(g.raw, w.raw) || (g.raw == nil) != (w.raw == nil) {
					t.Errorf("row %d: got %q %q %q, want %q %q %q", i, g.PartitionKey, g.RowKey, g.raw, w.PartitionKey, w.RowKey, w.raw)
				}
			}
			if left, _ := os.ReadDir(tmp); len(left) != 0 {
				t.Errorf("left in the temporary directory: %v", left)
			}
		})
	}
}

// setFanIn sets fanIn for the test.
func setFanIn(t *testing.T, n int) {
	old := fanIn
	fanIn = n
	t.Cleanup(func() { fanIn = old })
}

// TestRowSpillFanIn: runs are merged fanIn at a time as they come, so a
// long input leaves few files to merge at the end, and equal keys keep
// their order through every merge.
func TestRowSpillFanIn(t *testing.T) {
	setFanIn(t, 4)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	var in []row
	for range 5 {
		in = append(in, spillRows()...) // 200 rows, each key 5 times or more
	}
	for i := range in {
		in[i].raw = json.RawMessage(fmt.Sprintf(`{"I":%d}`, i))
	}
	want := slices.Clone(in)
	slices.SortStableFunc(want, func(a, b row) int { return compareRows(&a, &b) })
	var got []row
	files := -1
	for r, err := range rowSpill.sorted(seqOf(in, nil), runLimits{items: 1, bytes: 1 << 20}) {
		if err != nil {
			t.Fatal(err)
		}
		if files < 0 {
			dirs, _ := filepath.Glob(filepath.Join(tmp, "tablekit-sort*", "run*"))
			files = len(dirs)
		}
		got = append(got, r)
	}
	// 200 runs of one row: fewer than 4 of each of 1, 4, 16, 64 rows.
	if files < 2 || files > 4*3 {
		t.Errorf("files at the last merge: got %d, want 2 to %d", files, 4*3)
	}
	if len(got) != len(want) {
		t.Fatalf("got %d rows, want %d", len(got), len(want))
	}
	for i := range want {
		if g, w := got[i], want[i]; g.PartitionKey != w.PartitionKey || g.RowKey != w.RowKey || !bytes.Equal(g.raw, w.raw) {
			t.Fatalf("row %d: got %q %q %s, want %q %q %s", i, g.PartitionKey, g.RowKey, g.raw, w.PartitionKey, w.RowKey, w.raw)
		}
	}
}

// TestRowSpillStops: an error of the input, or a break, ends the sort and
// removes its runs.
func TestRowSpillStops(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	boom := errors.New("boom")
	lim := runLimits{items: 4, bytes: 1 << 20}
	var got error
	for _, err := range rowSpill.sorted(seqOf(spillRows(), boom), lim) {
		got = err
	}
	if !errors.Is(got, boom) {
		t.Errorf("input error: got %v, want %v", got, boom)
	}
	n := 0
	for _, err := range rowSpill.sorted(seqOf(spillRows(), nil), lim) {
		if err != nil {
			t.Fatal(err)
		}
		if n++; n == 5 {
			break
		}
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("left in the temporary directory: %v", left)
	}
}

// TestRowSpillTruncatedRun: a run file cut anywhere but between two rows
// is an error, never a shorter row.
func TestRowSpillTruncatedRun(t *testing.T) {
	rows := []row{{PartitionKey: "p", RowKey: "r", raw: json.RawMessage(`{"A":1}`)}, {PartitionKey: "q", RowKey: "s"}}
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	var ends []int
	for i := range rows {
		if err := rowSpill.write(w, &rows[i]); err != nil {
			t.Fatal(err)
		}
		w.Flush()
		ends = append(ends, buf.Len())
	}
	full := buf.Bytes()
	for cut := 0; cut <= len(full); cut++ {
		next := rowSpill.read(bytes.NewReader(full[:cut]))
		n := 0
		var err error
		for {
			if _, err = next(); err != nil {
				break
			}
			n++
		}
		whole := slices.Index(ends, cut) + 1 // rows whole at the cut; 0 when inside one
		if cut == 0 {
			whole = 0
		}
		switch {
		case cut == 0 || whole > 0:
			if !errors.Is(err, io.EOF) || n != whole {
				t.Errorf("cut at %d: got %d rows and %v, want %d and io.EOF", cut, n, err, whole)
			}
		case !errors.Is(err, io.ErrUnexpectedEOF) || !strings.Contains(err.Error(), "sorted run"):
			t.Errorf("cut at %d inside a row: got %d rows and %v, want io.ErrUnexpectedEOF", cut, n, err)
		}
	}
}

// TestCompareStreamsOrder: a side that repeats a key or goes back stops
// the comparison with an error naming the side and the keys.
func TestCompareStreamsOrder(t *testing.T) {
	r := func(pk, rk string) row { return row{PartitionKey: pk, RowKey: rk, raw: json.RawMessage(`{}`)} }
	ok := []row{r("a", "1"), r("a", "2"), r("b", "1")}
	for _, tt := range []struct {
		name     string
		src, dst []row
		want     string
	}{
		{"twice", []row{r("a", "1"), r("a", "1")}, ok, `source: ("a", "1") came twice`},
		{"back", ok, []row{r("a", "2"), r("a", "1")}, `target: ("a", "1") came after ("a", "2"): not in key order`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ta := &tally{}
			decode := func(r *row) (map[string]any, error) { return map[string]any{}, nil }
			err := compareStreams(seqOf(tt.src, nil), seqOf(tt.dst, nil), ta, nil, decode, func(*row) error { return nil })
			if err == nil || err.Error() != tt.want {
				t.Errorf("got %v, want %s", err, tt.want)
			}
		})
	}
}
