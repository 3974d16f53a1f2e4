package keyspace

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/tablekit/tablekit/internal/wire"
)

// Key is an entity's keys.
type Key struct{ PK, RK string }

// Reader makes the splitter's reads: each call is one keys-only query (a
// request, or a few when the service sends empty pages).
type Reader interface {
	// Read returns the keys of the first entities in r, at most n (1 to
	// 1,000), in key order, and whether r holds keys after them. r is a
	// range of PartitionKeys, or of RowKeys within the one partition the
	// reader reads (Split's byRow).
	Read(ctx context.Context, r Range, n int) (keys []Key, more bool, err error)
}

// Options bound the splitter's reads; zero fields take the defaults.
type Options struct {
	PageSize int // keys per read, 1 to 1,000; default 1,000
	Reads    int // about how many reads to make; default 80 to 130, by parts
	InFlight int // reads at once; default 4
}

// The reads besides the pages: the first page, one to see whether there is
// another partition and about five for the common prefix (prefixReads),
// then endSteps for the end of the keys (fewEndSteps with few reads). The pages go
// three fifths where the keys are spread evenly, two fifths where the
// estimates are least sure. With few reads (fewReads), as for the segments
// of one process, all go evenly and, after the first, read fewPage keys
// each (as costly as a full page on the service, a fraction of one on
// Azurite): enough to place segments where the keys are.
const (
	prefixReads = 7
	fewReads    = 40
	fewPage     = 100
)

// Result is where Split cuts a range and what it found.
type Result struct {
	Bounds    []string  // increasing, strictly inside the range
	Estimates []float64 // the keys estimated in each part (len(Bounds)+1)
	Exact     bool      // the estimates are counts: every key of the range was read
	Reads     int       // calls of Reader.Read
}

// Split finds up to parts-1 bounds that cut r into parts holding about the
// same number of entities. Its reads find the keys' common prefix, read a
// page at points spread over the key space after it, and then read more
// where the count is least sure; between the pages, a key's share of the
// space stands for its share of the entities (see coord). Whatever it
// finds, the bounds increase strictly inside r, so the parts tile r. With
// byRow false it cuts PartitionKeys: a partition is never split, so a
// range holding one partition stays whole.
func Split(ctx context.Context, rd Reader, r Range, byRow bool, parts int, o Options) (Result, error) {
	if parts < 1 {
		return Result{}, fmt.Errorf("keyspace: %d parts", parts)
	}
	o.PageSize = min(cmp.Or(o.PageSize, 1000), 1000)
	o.Reads = cmp.Or(o.Reads, min(max(6*parts+60, 80), 130))
	o.InFlight = cmp.Or(o.InFlight, 4)
	s := &splitter{rd: rd, r: r, byRow: byRow, o: o, page: o.PageSize}
	if o.Reads < fewReads {
		s.endSteps, s.spreadN, s.page = fewEndSteps, max(o.Reads-prefixReads-fewEndSteps, 4), min(o.PageSize, fewPage)
	} else {
		pages := o.Reads - prefixReads - endSteps
		s.endSteps, s.spreadN, s.refineN = endSteps, pages*3/5, pages*2/5
	}
	s.pieces = []piece{{lo: s.loOf(r.Lo, r.After)}}
	if err := s.run(ctx, parts); err != nil {
		return Result{Reads: s.reads}, err
	}
	return s.result(parts), nil
}

// piece is a stretch [lo, the next piece's lo) of the key space, in the
// splitter's string space (see splitter.str): either read, with its keys,
// or not yet, with an estimate.
type piece struct {
	lo    string
	known bool
	keys  []string // known: the keys in it
	est   float64  // not known: the keys estimated in it
}

type splitter struct {
	rd       Reader
	r        Range
	byRow    bool
	o        Options
	reads    int
	pieces   []piece
	seen     []string // keys read, for the coordinate (see observe)
	last     string   // the last key read
	prefix   string   // every key of the range starts with it
	end      string   // the range's end in string space ("": open)
	c        *coord
	single   bool // byRow false and one partition: nothing to cut
	endSteps int  // reads looking for the end of the keys
	page     int  // keys per read after the first
	spreadN  int  // pages spread evenly
	refineN  int  // pages where the estimates are least sure
}

// str is a key in the splitter's string space, where string order is key
// order: the RowKey when cutting RowKeys, else PartitionKey, a zero
// character (below any a key may hold) and the RowKey.
func (s *splitter) str(k Key) string {
	if s.byRow {
		return k.RK
	}
	return k.PK + "\x00" + k.RK
}

// loOf is the string-space start of a read from v (after v with after).
func (s *splitter) loOf(v string, after bool) string {
	switch {
	case !after:
		return v
	case s.byRow:
		return v + "\x00"
	}
	return v + "\x01" // after every row of partition v
}

// readable turns a string-space start back into a read's lower end; false
// inside a partition when cutting PartitionKeys.
func (s *splitter) readable(lo string) (v string, after, ok bool) {
	if s.byRow {
		if strings.HasSuffix(lo, "\x00") {
			return lo[:len(lo)-1], true, true
		}
		return lo, false, true
	}
	switch {
	case strings.Contains(lo, "\x00"):
		return "", false, false
	case strings.HasSuffix(lo, "\x01"):
		return lo[:len(lo)-1], true, true
	}
	return lo, false, true
}

// value is the split property's value of a string-space point: cuts are
// values (with byRow false, the start of a partition).
func (s *splitter) value(str string) string {
	if s.byRow {
		return str
	}
	pk, _, _ := strings.Cut(str, "\x00")
	return pk
}

func (s *splitter) run(ctx context.Context, parts int) error {
	s.c = newCoord("", nil, true)
	first, err := s.readPiece(ctx, 0, s.pieces[0].lo)
	if err != nil || len(first) == 0 || parts == 1 || s.allKnown() {
		return err
	}
	if s.r.HasHi {
		s.end = s.r.Hi
	}
	if pk := first[0].PK; !s.byRow && first[len(first)-1].PK == pk {
		// One partition cannot be cut.
		ks, _, err := s.read(ctx, Range{Lo: pk, After: true, Hi: s.r.Hi, HasHi: s.r.HasHi}, 1)
		if err != nil {
			return err
		}
		if len(ks) == 0 {
			s.single = true
			return nil
		}
	}
	if err := s.findPrefix(ctx, s.str(first[0])); err != nil {
		return err
	}
	if e, ok := wire.PrefixEnd(s.prefix); ok && (s.end == "" || wire.CompareUTF16(e, s.end) < 0) {
		s.end = e
	}
	s.c = newCoord(s.prefix, s.seen, false)
	if err := s.narrowEnd(ctx); err != nil {
		return err
	}
	// Half the pages evenly over the digits the keys may hold, half
	// evenly over the characters they were seen to hold.
	if err := s.spread(ctx, (s.spreadN+1)/2, true); err != nil {
		return err
	}
	s.c = newCoord(s.prefix, s.seen, true)
	if err := s.spread(ctx, s.spreadN/2, false); err != nil {
		return err
	}
	for budget := s.refineN; budget > 0; {
		s.c = newCoord(s.prefix, s.seen, true)
		s.estimate()
		n, err := s.refine(ctx, min(budget, 2*s.o.InFlight))
		if err != nil || n == 0 {
			return err
		}
		budget -= n
	}
	s.c = newCoord(s.prefix, s.seen, true)
	s.estimate()
	return nil
}

// read is one call of the reader, its keys kept for the coordinate.
func (s *splitter) read(ctx context.Context, r Range, n int) ([]Key, bool, error) {
	ks, more, err := s.rd.Read(ctx, r, n)
	s.reads++
	s.observe(ks)
	return ks, more, err
}

// observe keeps some of the keys a read returned for the coordinate: a
// page's every tenth key or so shows what its positions hold as well as
// all of them, at a tenth of the cost.
func (s *splitter) observe(ks []Key) {
	for _, k := range ks {
		if str := s.str(k); wire.CompareUTF16(str, s.last) > 0 {
			s.last = str
		}
	}
	step := max(len(ks)/observed, 1)
	for i := 0; i < len(ks); i += step {
		s.seen = append(s.seen, s.str(ks[i]))
	}
	if len(ks) > 0 && (len(ks)-1)%step != 0 {
		s.seen = append(s.seen, s.str(ks[len(ks)-1]))
	}
}

// observed is about how many keys of a page the coordinate sees.
const observed = 100

// hiOf is the end of piece i, "" when it is the range's open end.
func (s *splitter) hiOf(i int) string {
	if i+1 < len(s.pieces) {
		return s.pieces[i+1].lo
	}
	if s.r.HasHi {
		return s.r.Hi
	}
	return ""
}

// readPiece reads piece i (not known) from its point from up to its end,
// and puts what it found in its place.
func (s *splitter) readPiece(ctx context.Context, i int, from string) ([]Key, error) {
	v, after, ok := s.readable(from)
	if !ok {
		return nil, fmt.Errorf("keyspace: %q is not a read's start", from)
	}
	hi := s.hiOf(i)
	rg := Range{Lo: v, After: after, Hi: s.value(hi), HasHi: hi != ""}
	ks, more, err := s.read(ctx, rg, s.o.PageSize)
	if err != nil {
		return nil, err
	}
	s.place(i, from, ks, more)
	return ks, nil
}

// place puts the result of a read of piece i from from in its place: the
// part before from stays unread, the part read is known, and after a full
// page the rest is unread (with byRow false, first the rest of the last
// partition read, which only the estimate covers).
func (s *splitter) place(i int, from string, ks []Key, more bool) {
	var out []piece
	if wire.CompareUTF16(from, s.pieces[i].lo) > 0 {
		out = append(out, piece{lo: s.pieces[i].lo})
	}
	known := piece{lo: from, known: true}
	for _, k := range ks {
		known.keys = append(known.keys, s.str(k))
	}
	out = append(out, known)
	if more && len(ks) > 0 {
		last := ks[len(ks)-1]
		out = append(out, piece{lo: s.str(last) + "\x00"})
		if !s.byRow {
			out = append(out, piece{lo: s.loOf(last.PK, true)})
		}
	}
	s.pieces = slices.Replace(s.pieces, i, i+1, out...)
}

func (s *splitter) allKnown() bool {
	for _, p := range s.pieces {
		if !p.known {
			return false
		}
	}
	return true
}

// findPrefix finds the longest prefix every key of the range has, by
// asking whether any key lies after all the strings with a prefix of the
// first key: the answer is no up to the common prefix and yes after it.
func (s *splitter) findPrefix(ctx context.Context, first string) error {
	rs := []rune(first)
	if !s.byRow {
		pk, _, _ := strings.Cut(first, "\x00")
		rs = []rune(pk) // there is another partition: the prefix is within the key
	}
	exists := func(d int) (bool, error) {
		e, ok := wire.PrefixEnd(string(rs[:d]))
		if !ok || (s.r.HasHi && wire.CompareUTF16(e, s.r.Hi) >= 0) {
			return false, nil
		}
		ks, _, err := s.read(ctx, Range{Lo: e, Hi: s.r.Hi, HasHi: s.r.HasHi}, 1)
		return len(ks) > 0, err
	}
	lo, hi := 0, min(len(rs), maxPrefix)+1 // exists(lo) is false; hi is past the depths looked at
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		ok, err := exists(mid)
		if err != nil {
			return err
		}
		if ok {
			hi = mid
		} else {
			lo = mid
		}
	}
	s.prefix = string(rs[:lo])
	return nil
}

// narrowEnd narrows the range's end to about where its last key is, so that
// the pages spread over the keys and not over the space after them
// (customer-000001 to customer-050000 fill half of the digit after the
// prefix, dates in a year a few of its months). The end stays an end: no
// key is at or after it.
func (s *splitter) narrowEnd(ctx context.Context) error {
	lo, hi := s.c.at(s.last), s.uEnd()
	for range s.endSteps {
		mid := (lo + hi) / 2
		k := s.c.key(mid)
		if !s.byRow {
			k = s.value(k)
		}
		if wire.CompareUTF16(k, s.last) <= 0 {
			lo = mid
			continue
		}
		ks, _, err := s.read(ctx, Range{Lo: k, Hi: s.value(s.end), HasHi: s.end != ""}, 1)
		if err != nil {
			return err
		}
		if len(ks) > 0 {
			lo = max(mid, s.c.at(s.str(ks[0])))
		} else {
			hi = mid
			s.end = k
		}
	}
	return nil
}

// endSteps is how many reads narrowEnd makes: the end is then known within
// 1/64 of the space after the first page (1/8 with fewEndSteps).
const (
	endSteps    = 6
	fewEndSteps = 3
)

// maxPrefix bounds the common prefix looked for, in characters.
const maxPrefix = 256

// spread reads pages at n points spread evenly over the key space of the
// unread pieces (those a read can start in). With first, every part the
// points make is read, from the first piece's start on; without, only the
// parts that start at a point, the points then centred in their shares.
func (s *splitter) spread(ctx context.Context, n int, first bool) error {
	var idx []int
	var total float64
	for i, p := range s.pieces {
		if _, _, ok := s.readable(p.lo); !p.known && ok && s.width(i) > 0 {
			idx = append(idx, i)
			total += s.width(i)
		}
	}
	if len(idx) == 0 || n < 1 {
		return nil
	}
	// The points of each piece, as offsets along the pieces laid end to end.
	step, off := total/float64(n), total/float64(n)
	if !first {
		off = step / 2
	}
	points := make(map[int][]string)
	var acc float64
	for _, i := range idx {
		lo, w := s.pieces[i].lo, s.width(i)
		hi := s.hiOf(i)
		last := lo
		for ; off < acc+w && off < total; off += step {
			p := s.c.key(s.c.at(lo) + off - acc)
			if !s.byRow {
				p = s.value(p)
			}
			if wire.CompareUTF16(p, last) > 0 && (hi == "" || wire.CompareUTF16(p, hi) < 0) {
				points[i] = append(points[i], p)
				last = p
			}
		}
		acc += w
	}
	// Cut the pieces at their points (each shifts the indexes after it)
	// and list the parts to read.
	var read []int
	shift := 0
	for _, i := range idx {
		ps := points[i]
		at := i + shift
		cut := []piece{s.pieces[at]}
		for _, p := range ps {
			cut = append(cut, piece{lo: p})
		}
		s.pieces = slices.Replace(s.pieces, at, at+1, cut...)
		for j := range cut {
			if first || j > 0 {
				read = append(read, at+j)
			}
		}
		shift += len(ps)
	}
	return s.readAll(ctx, read, nil)
}

// readAll reads the pieces at idx (from their start, or from from[j]) at
// once and places the results, last first so that the indexes hold.
func (s *splitter) readAll(ctx context.Context, idx []int, from []string) error {
	type res struct {
		ks   []Key
		more bool
	}
	out := make([]res, len(idx))
	reqs := make([]Range, len(idx))
	starts := make([]string, len(idx))
	for j, i := range idx {
		starts[j] = s.pieces[i].lo
		if from != nil {
			starts[j] = from[j]
		}
		v, after, _ := s.readable(starts[j])
		hi := s.hiOf(i)
		reqs[j] = Range{Lo: v, After: after, Hi: s.value(hi), HasHi: hi != ""}
	}
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(s.o.InFlight)
	for j := range idx {
		g.Go(func() error {
			ks, more, err := s.rd.Read(gctx, reqs[j], s.page)
			mu.Lock()
			out[j] = res{ks, more}
			mu.Unlock()
			return err
		})
	}
	err := g.Wait()
	s.reads += len(idx)
	if err != nil {
		return err
	}
	for j := len(idx) - 1; j >= 0; j-- {
		s.observe(out[j].ks)
		s.place(idx[j], starts[j], out[j].ks, out[j].more)
	}
	return nil
}

// uEnd is the coordinate of the range's end.
func (s *splitter) uEnd() float64 {
	if s.end == "" {
		return 1
	}
	return s.c.at(s.end)
}

// width is piece i's extent on the coordinate.
func (s *splitter) width(i int) float64 {
	hi := s.uEnd()
	if i+1 < len(s.pieces) {
		hi = s.c.at(s.pieces[i+1].lo)
	}
	return max(hi-s.c.at(s.pieces[i].lo), 0)
}

// estimate sets the estimate of every unread piece: its extent times the
// density (keys per extent) the nearest read pieces on either side have,
// as if it went from one to the other in a straight line, or of all that
// was read when neither side has one.
func (s *splitter) estimate() {
	var allN, allW float64
	for i, p := range s.pieces {
		if p.known {
			allN += float64(len(p.keys))
			allW += s.width(i)
		}
	}
	// The density on one side: the pieces read there, pooled until they
	// are half as wide as piece i or hold a page, so that a sliver of
	// empty key space next to it does not stand for the whole side.
	density := func(i, step int) (float64, bool) {
		var n, w float64
		for j := i + step; j >= 0 && j < len(s.pieces); j += step {
			if !s.pieces[j].known {
				continue
			}
			n += float64(len(s.pieces[j].keys))
			w += s.width(j)
			if w >= s.width(i)/2 || n >= float64(s.page) {
				break
			}
		}
		return n / w, w > 0
	}
	for i := range s.pieces {
		p := &s.pieces[i]
		if p.known {
			continue
		}
		l, okl := density(i, -1)
		r, okr := density(i, 1)
		var d float64
		switch {
		case okl && okr:
			d = (l + r) / 2
		case okl:
			d = l
		case okr:
			d = r
		case allW > 0:
			d = allN / allW
		default:
			p.est = float64(s.page)
			continue
		}
		p.est = d * s.width(i)
	}
}

// refine reads up to n of the unread pieces the estimates are least sure
// of, the largest first: a piece likely to fit in one page from its start,
// a larger one from its middle. It returns how many it read.
func (s *splitter) refine(ctx context.Context, n int) (int, error) {
	var cand []int
	for i, p := range s.pieces {
		if _, _, ok := s.readable(p.lo); !p.known && ok && p.est >= 1 {
			cand = append(cand, i)
		}
	}
	slices.SortStableFunc(cand, func(a, b int) int { return cmp.Compare(s.pieces[b].est, s.pieces[a].est) })
	cand = cand[:min(n, len(cand))]
	slices.Sort(cand)
	from := make([]string, len(cand))
	for j, i := range cand {
		from[j] = s.pieces[i].lo
		if s.pieces[i].est <= 1.5*float64(s.page) {
			continue
		}
		u0 := s.c.at(s.pieces[i].lo)
		m := s.c.key(u0 + s.width(i)/2)
		if !s.byRow {
			m = s.value(m)
		}
		hi := s.hiOf(i)
		if wire.CompareUTF16(m, s.pieces[i].lo) > 0 && (hi == "" || wire.CompareUTF16(m, hi) < 0) {
			from[j] = m
		}
	}
	if len(cand) == 0 {
		return 0, nil
	}
	return len(cand), s.readAll(ctx, cand, from)
}

// result cuts the range where the counts and estimates put the quantiles.
func (s *splitter) result(parts int) Result {
	res := Result{Reads: s.reads, Exact: true}
	var total float64
	for _, p := range s.pieces {
		if p.known {
			total += float64(len(p.keys))
		} else {
			total += p.est
			if p.est > 0.5 {
				res.Exact = false
			}
		}
	}
	if s.single || total == 0 || parts == 1 {
		return Result{Reads: s.reads, Estimates: []float64{total}, Exact: res.Exact}
	}
	var bounds []string
	for k := 1; k < parts; k++ {
		if b, ok := s.cutAt(total * float64(k) / float64(parts)); ok {
			bounds = append(bounds, b)
		}
	}
	slices.SortFunc(bounds, wire.CompareUTF16)
	bounds = slices.Compact(bounds)
	bounds = slices.DeleteFunc(bounds, func(b string) bool { return !s.r.Cuts(b) })
	res.Bounds = bounds
	prev := 0.0
	for _, b := range bounds {
		f := s.below(b)
		res.Estimates = append(res.Estimates, f-prev)
		prev = f
	}
	res.Estimates = append(res.Estimates, total-prev)
	return res
}

// cutAt is the bound that puts about t keys before it.
func (s *splitter) cutAt(t float64) (string, bool) {
	acc := 0.0
	for i, p := range s.pieces {
		if p.known {
			n := float64(len(p.keys))
			if acc+n <= t {
				acc += n
				continue
			}
			j := int(t - acc) // the key at rank t
			if s.byRow {
				return p.keys[j], true
			}
			// The partition holding it starts at a bound, or the next one
			// does, whichever is nearer in rank.
			pk := s.value(p.keys[j])
			a := slices.IndexFunc(p.keys, func(k string) bool { return s.value(k) == pk })
			b := slices.IndexFunc(p.keys[j:], func(k string) bool { return s.value(k) != pk })
			if b >= 0 && float64(j+b)-(t-acc) < (t-acc)-float64(a) {
				return s.value(p.keys[j+b]), true
			}
			return pk, true
		}
		if acc+p.est <= t {
			acc += p.est
			continue
		}
		// The point in the piece, moved on while it names a bound at
		// or before the piece's start (keys merged into one point).
		u0, w := s.c.at(p.lo), s.width(i)
		for f := (t - acc) / p.est; f < 1; f = max(2*f, 1.0/64) {
			k := s.c.key(u0 + f*w)
			if !s.byRow {
				k = s.value(k)
			}
			if wire.CompareUTF16(k, p.lo) > 0 {
				return k, true
			}
		}
		// Inside a partition: the next bound after it.
		acc += p.est
		t = acc
	}
	return "", false
}

// below is the keys counted or estimated before bound b.
func (s *splitter) below(b string) float64 {
	f := 0.0
	ub := s.c.at(b)
	for i, p := range s.pieces {
		if p.known {
			n, _ := slices.BinarySearchFunc(p.keys, b, wire.CompareUTF16)
			f += float64(n)
			continue
		}
		u0, w := s.c.at(p.lo), s.width(i)
		switch {
		case w <= 0:
			if wire.CompareUTF16(p.lo, b) < 0 {
				f += p.est
			}
		default:
			f += p.est * min(max((ub-u0)/w, 0), 1)
		}
	}
	return f
}
