package keyspace

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tablekit/tablekit/devtools/testenv"
)

// shape is a synthetic key set, as real tables hold them.
type shape struct {
	name  string
	keys  func(n int) []Key
	byRow bool   // split the RowKeys of partition pk
	pk    string // with byRow
}

var epoch = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// reverseTicks is table.ReverseTicks (package table cannot be imported
// here): 19 digits, the largest .NET ticks minus t's.
func reverseTicks(t time.Time) string {
	const maxTicks = 3155378975999999999
	return fmt.Sprintf("%019d", maxTicks-(t.UnixNano()/100+621355968000000000))
}

func guid(r *rand.Rand) string {
	b := make([]byte, 16)
	for i := range b {
		b[i] = byte(r.UintN(256))
	}
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// times are keys of a time series, rows entities per step.
func times(step time.Duration, rows int, layout string) func(n int) []Key {
	return func(n int) []Key {
		ks := make([]Key, n)
		for i := range ks {
			ks[i] = Key{epoch.Add(time.Duration(i/rows) * step).Format(layout), fmt.Sprintf("%05d", i%rows)}
		}
		return ks
	}
}

var shapes = []shape{
	{name: "p00-p99", keys: func(n int) []Key {
		ks := make([]Key, n)
		for i := range ks {
			ks[i] = Key{fmt.Sprintf("p%02d", i%100), fmt.Sprintf("%06d", i/100)}
		}
		return ks
	}},
	{name: "customer", keys: func(n int) []Key {
		ks := make([]Key, n)
		for i := range ks {
			ks[i] = Key{fmt.Sprintf("customer-%06d", i+1), "profile"}
		}
		return ks
	}},
	{name: "guid", keys: func(n int) []Key {
		r := rand.New(rand.NewPCG(1, uint64(n)))
		ks := make([]Key, n)
		for i := range ks {
			ks[i] = Key{guid(r), ""}
		}
		return ks
	}},
	{name: "iso-time", keys: times(37*time.Second, 1, time.RFC3339)},
	{name: "iso-time-years", keys: times(7*time.Minute, 1, time.RFC3339)},
	{name: "iso-time-rows", keys: times(3*time.Hour, 20, time.RFC3339)},
	{name: "iso-date", keys: times(24*time.Hour, 30, time.DateOnly)},
	{name: "reverse-ticks", keys: func(n int) []Key {
		ks := make([]Key, n)
		for i := range ks {
			ks[i] = Key{reverseTicks(epoch.Add(time.Duration(i) * 7 * time.Second)), "log"}
		}
		return ks
	}},
	{name: "reverse-ticks-rows", byRow: true, pk: "device-7", keys: func(n int) []Key {
		ks := make([]Key, n)
		for i := range ks {
			ks[i] = Key{"device-7", reverseTicks(epoch.Add(time.Duration(i) * 3 * time.Second))}
		}
		return ks
	}},
	{name: "guid-rows", byRow: true, pk: "p", keys: func(n int) []Key {
		r := rand.New(rand.NewPCG(2, uint64(n)))
		ks := make([]Key, n)
		for i := range ks {
			ks[i] = Key{"p", guid(r)}
		}
		return ks
	}},
}

// TestSoakSplitBalance cuts tables of the shapes keys commonly take into
// 2 to 16 parts: every part within 50% of an even share, the parts tiling
// the table, in a bounded number of reads.
func TestSoakSplitBalance(t *testing.T) {
	sizes := slices.Compact([]int{10000, testenv.Size(100000, 10000)})
	for _, sh := range shapes {
		for _, n := range sizes {
			rd := newSliceReader(sh.keys(n), sh.byRow, sh.pk)
			for _, parts := range []int{2, 3, 4, 8, 16} {
				t.Run(fmt.Sprintf("%s/%d/%d", sh.name, n, parts), func(t *testing.T) {
					rd.reads.Store(0)
					res, err := Split(context.Background(), rd, Range{}, sh.byRow, parts, Options{})
					if err != nil {
						t.Fatal(err)
					}
					if err := CheckBounds(res.Bounds, Range{}); err != nil {
						t.Fatal(err)
					}
					counts := rd.counts(Tiles(Range{}, res.Bounds))
					want := float64(n) / float64(parts)
					worst := 0.0
					for _, c := range counts {
						worst = max(worst, abs(float64(c)-want)/want)
					}
					t.Logf("%d reads, counts %v, worst %.0f%%", rd.reads.Load(), counts, 100*worst)
					if got := len(counts); got != parts {
						t.Errorf("got %d parts, want %d", got, parts)
					}
					if worst > 0.5 {
						t.Errorf("got counts %v, off by %.0f%%; want each within 50%% of %.0f", counts, 100*worst, want)
					}
					if got, want := int(rd.reads.Load()), res.Reads; got != want {
						t.Errorf("got %d reads, the result says %d", got, want)
					}
					if got, want := res.Reads, 140; got > want {
						t.Errorf("got %d reads, want at most %d", got, want)
					}
				})
			}
		}
	}
}

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}

// randomKey makes keys of every shape the split must survive: empty,
// short, long, ASCII, accented, CJK, beyond U+FFFF and at U+FFFF.
func randomKey(r *rand.Rand) string {
	const other = " !$%&()*+,-.:;<=>@[]^_`{|}~\u00e9\u4e2d\U0001F600\uffff"
	alnum := "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	o := []rune(other)
	n := r.IntN(8)
	b := make([]rune, 0, n)
	for range n {
		if r.IntN(6) == 0 {
			b = append(b, o[r.IntN(len(o))])
		} else {
			b = append(b, rune(alnum[r.IntN(len(alnum))]))
		}
	}
	return string(b)
}

// TestSplitTiles splits odd key sets, whole and within ranges: whatever
// the keys, the bounds increase strictly inside the range and every key
// falls in exactly one part.
func TestSplitTiles(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var random, randomRows, unicode, long []Key
	for range 5000 {
		random = append(random, Key{randomKey(r), randomKey(r)})
		randomRows = append(randomRows, Key{"p", randomKey(r)})
	}
	for i := range 3000 {
		unicode = append(unicode, Key{[]string{"é", "中", "\U0001F600", "\uffff", "\ue000"}[i%5] + fmt.Sprint(i), ""})
		long = append(long, Key{strings.Repeat("x", 300) + fmt.Sprintf("%04d", i), ""})
	}
	few := []Key{{"a", "1"}, {"b", "1"}, {"c", "1"}}
	one := []Key{{"only", "1"}}
	onePartition := make([]Key, 3000)
	for i := range onePartition {
		onePartition[i] = Key{"big", fmt.Sprintf("%05d", i)}
	}
	sets := []struct {
		name  string
		keys  []Key
		byRow bool
	}{
		{"random", random, false},
		{"random rows", randomRows, true},
		{"unicode", unicode, false},
		{"long prefix", long, false},
		{"few", few, false},
		{"one", one, false},
		{"none", nil, false},
		{"one partition", onePartition, false},
		{"one partition by row", onePartition, true},
	}
	ranges := []Range{{}, {Lo: "M"}, {Lo: "a", After: true}, {Hi: "c", HasHi: true}, {Lo: "1", Hi: "z", HasHi: true}}
	for _, set := range sets {
		pk := ""
		if set.byRow && len(set.keys) > 0 {
			pk = set.keys[0].PK
		}
		rd := newSliceReader(set.keys, set.byRow, pk)
		for _, rg := range ranges {
			for _, parts := range []int{1, 2, 7} {
				t.Run(fmt.Sprintf("%s/%+v/%d", set.name, rg, parts), func(t *testing.T) {
					res, err := Split(context.Background(), rd, rg, set.byRow, parts, Options{})
					if err != nil {
						t.Fatal(err)
					}
					if err := CheckBounds(res.Bounds, rg); err != nil {
						t.Fatalf("bounds %q: %v", res.Bounds, err)
					}
					if got, want := len(res.Bounds), parts-1; got > want {
						t.Errorf("got %d bounds, want at most %d", got, want)
					}
					tiles := Tiles(rg, res.Bounds)
					for _, k := range rd.keys {
						in := 0
						for _, tl := range tiles {
							if tl.Contains(rd.value(k)) {
								in++
							}
						}
						if want := b2i(rg.Contains(rd.value(k))); in != want {
							t.Fatalf("key %q in %d parts, want %d", rd.value(k), in, want)
						}
					}
				})
			}
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestSplitSmall cuts a range whose keys fit in one page exactly, in one
// read; a range of one partition is not cut when cutting PartitionKeys.
func TestSplitSmall(t *testing.T) {
	var ks []Key
	for i := range 900 {
		ks = append(ks, Key{fmt.Sprintf("k%03d", i), ""})
	}
	rd := newSliceReader(ks, false, "")
	res, err := Split(context.Background(), rd, Range{}, false, 3, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := rd.counts(Tiles(Range{}, res.Bounds)), []int{300, 300, 300}; !slices.Equal(got, want) || !res.Exact || res.Reads != 1 {
		t.Errorf("got counts %v, exact %v in %d reads; want %v, exact in 1", got, res.Exact, res.Reads, want)
	}
	var one []Key
	for i := range 2500 {
		one = append(one, Key{"p", fmt.Sprintf("%05d", i)})
	}
	rd = newSliceReader(one, false, "")
	res, err = Split(context.Background(), rd, Range{}, false, 4, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Bounds) != 0 || res.Reads != 2 {
		t.Errorf("one partition: got bounds %q in %d reads, want none in 2", res.Bounds, res.Reads)
	}
}

// TestSplitFewReads splits with the reads a process gives its segments
// (32 parts for 8 requests in flight): few, yet at least one part holding
// keys per request in flight, whatever the shape.
func TestSplitFewReads(t *testing.T) {
	for _, sh := range shapes {
		rd := newSliceReader(sh.keys(10000), sh.byRow, sh.pk)
		res, err := Split(context.Background(), rd, Range{}, sh.byRow, 32, Options{Reads: 12})
		if err != nil {
			t.Fatal(err)
		}
		if err := CheckBounds(res.Bounds, Range{}); err != nil {
			t.Fatalf("%s: %v", sh.name, err)
		}
		filled := 0
		for _, c := range rd.counts(Tiles(Range{}, res.Bounds)) {
			if c > 0 {
				filled++
			}
		}
		if res.Reads > 14 || filled < 8 {
			t.Errorf("%s: got %d reads and %d of %d parts holding keys; want at most 14 reads, at least 8 parts with keys", sh.name, res.Reads, filled, len(res.Bounds)+1)
		}
	}
}

// TestSplitDeterministic splits the same keys twice: the same bounds.
func TestSplitDeterministic(t *testing.T) {
	rd := newSliceReader(shapes[2].keys(20000), false, "")
	a, err := Split(context.Background(), rd, Range{}, false, 5, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Split(context.Background(), rd, Range{}, false, 5, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.Bounds, b.Bounds) {
		t.Errorf("got bounds %q then %q, want the same", a.Bounds, b.Bounds)
	}
}

// TestSplitReadError returns the reader's error.
func TestSplitReadError(t *testing.T) {
	boom := errors.New("boom")
	rd := newSliceReader(shapes[1].keys(5000), false, "")
	rd.fail = boom
	if _, err := Split(context.Background(), rd, Range{}, false, 4, Options{}); !errors.Is(err, boom) {
		t.Errorf("got %v, want %v", err, boom)
	}
}
