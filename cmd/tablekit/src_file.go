package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/klauspost/compress/gzip"

	"github.com/tablekit/tablekit/table"
)

// Rounds end at whichever comes first: enough operations for every
// transaction in flight to be full, or enough bytes to bound memory.
var (
	roundOps   = 5000
	roundBytes = 16 << 20
)

// countReader counts the input's bytes for the ETA.
type countReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// gzipMagic begins every gzip stream.
const gzipMagic = "\x1f\x8b"

// input is a file import or verify reads: through gzip when its name ends
// in .gz. size is the file's length as stored (-1 when unknown: standard
// input, a pipe), read counts those bytes, compressed, for the ETA.
type input struct {
	r     io.Reader
	size  int64
	close func() error
}

// openInput opens path ("-" is stdin). A file that cannot be opened, a .gz
// that is not gzip and a gzip file not named .gz are usage errors: nothing
// was read or sent. read may be nil.
func openInput(path string, stdin io.Reader, read *atomic.Int64) (*input, error) {
	in := &input{size: -1, close: func() error { return nil }}
	var r io.Reader = stdin
	what := "standard input"
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, &usageCause{err.Error(), err}
		}
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			in.size = fi.Size()
		}
		r, in.close, what = f, f.Close, path
	}
	if read != nil {
		r = countReader{r, read}
	}
	br := bufio.NewReaderSize(r, 1<<20)
	head, _ := br.Peek(len(gzipMagic))
	gz := string(head) == gzipMagic
	switch {
	case isGzip(path) && len(head) == 0:
		// An empty file: no entities, as an empty .jsonl holds.
	case isGzip(path) && !gz:
		in.close()
		return nil, usagef("%s is named %s but is not gzip-compressed: rename it without %s", path, gzipExt, gzipExt)
	case !isGzip(path) && gz && path == "-":
		in.close()
		return nil, usagef("standard input is gzip-compressed: pipe it through gunzip -c, or give the file's name ending in %s", gzipExt)
	case !isGzip(path) && gz:
		in.close()
		return nil, usagef("%s is gzip-compressed: name it %s%s to have it read through gzip", what, path, gzipExt)
	case gz:
		zr, err := gzip.NewReader(br)
		if err != nil {
			in.close()
			return nil, usagef("%s: not a gzip file tablekit can read: %v", path, err)
		}
		in.r = namedReader{zr, path}
		return in, nil
	}
	in.r = br
	return in, nil
}

// namedReader says which file a read error (a gzip stream cut short or
// corrupt) comes from.
type namedReader struct {
	r    io.Reader
	name string
}

func (n namedReader) Read(p []byte) (int, error) {
	k, err := n.r.Read(p)
	if err != nil && err != io.EOF {
		err = fmt.Errorf("%s: %w", n.name, err)
	}
	return k, err
}

// inputRecord is one entity read, or the reason a line was refused.
type inputRecord struct {
	line int64
	ent  *item
	rej  *reject
}

// readRounds reads records from next, skips those before line from (a
// resumed run), and cuts the rest into rounds of at most ops entities;
// texts is the slab next keeps their text in, whose slabs go with the
// round they hold.
func readRounds(ctx context.Context, next func() (inputRecord, error), from int64, ops int, texts *slab, out chan<- round) error {
	defer close(out)
	var r round
	send := func() bool {
		r.slabs = texts.cut()
		select {
		case out <- r:
			r = round{}
			return true
		case <-ctx.Done():
			return false
		}
	}
	for {
		rec, err := next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if rec.line < from {
			continue
		}
		r.next = lineToken(rec.line + 1)
		if rec.rej != nil {
			r.rejects = append(r.rejects, *rec.rej)
			continue
		}
		if r.items == nil {
			// A round's items at once, not grown (and copied) by doubling:
			// a written round's, given back, when there is one.
			r.items = texts.pool.items(min(ops, roundOps))
		}
		r.items = append(r.items, *rec.ent)
		r.bytes += rec.ent.size
		if len(r.items) >= ops || r.bytes >= roundBytes {
			if !send() {
				return ctx.Err()
			}
		}
	}
	if r.next != "" && !send() {
		return ctx.Err()
	}
	return nil
}

// jsonlRecords reads JSON Lines; blank lines and a BOM are skipped. With
// rt set, each line is read as a table.RawEntity (splitLine), else as
// a table.Entity through t (parseLine), whose record's item stays the
// caller's; a raw record's item is valid until the next call. Lines are
// read into one reused buffer and their text kept in texts' slabs (nil:
// slabs of its own), shared by many lines, for --rejects.
func jsonlRecords(t *dynTable, rt *table.Table[table.RawEntity], r io.Reader, texts *slab) func() (inputRecord, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	skipBOM(br)
	var line int64
	var long, scratch []byte
	if texts == nil {
		texts = new(slab)
	}
	// A raw record's item is read into again by the next call: its reader
	// (readRounds) copies it into the round at once. One allocation per
	// line was a fiftieth of an import's CPU, and 256 at a time still
	// allocated each item twice.
	var reused item
	return func() (inputRecord, error) {
		for {
			b, err := br.ReadSlice('\n')
			if errors.Is(err, bufio.ErrBufferFull) {
				// A line longer than the buffer: gather it.
				long = append(long[:0], b...)
				for errors.Is(err, bufio.ErrBufferFull) {
					b, err = br.ReadSlice('\n')
					long = append(long, b...)
				}
				b = long
			}
			if len(b) == 0 && err != nil {
				return inputRecord{}, err
			}
			if err != nil && !errors.Is(err, io.EOF) {
				return inputRecord{}, err
			}
			line++
			text := bytes.TrimRight(b, "\r\n")
			if len(bytes.TrimSpace(text)) == 0 {
				continue
			}
			if rt != nil {
				it := &reused
				var perr error
				*it, scratch, perr = splitLine(text, texts, scratch)
				it.line = line
				if perr != nil {
					return inputRecord{line: line, rej: &reject{Line: line, Reason: perr.Error(), Input: it.input()}}, nil
				}
				return inputRecord{line: line, ent: it}, nil
			}
			text = texts.keep(text)
			ent, perr := parseLine(t, text)
			if perr != nil {
				return inputRecord{line: line, rej: &reject{Line: line, Reason: perr.Error(), Input: string(text)}}, nil
			}
			return inputRecord{line: line, ent: &item{line: line, ent: ent, text: text, size: len(text)}}, nil
		}
	}
}

// slab keeps many short byte strings in a few large allocations: an
// import holds every line of its rounds in flight for --rejects, and one
// allocation per line was most of its garbage. With a pool, the slabs it
// fills go with the round whose lines they hold (cut), and the round's
// writer gives them back once the round is written (importSink.write): an
// import then reads into the same few megabytes however large its file,
// where every slab was fresh memory for the collector to reclaim and the
// kernel to fault in.
type slab struct {
	cur  []byte
	pool *slabPool // nil: slabs are left to the collector
	held [][]byte  // with pool: the slabs filled since the last cut
}

const slabSize = 1 << 20

// fresh starts a slab: a given back one, with a pool.
func (s *slab) fresh() []byte {
	if s.pool == nil {
		return make([]byte, 0, slabSize)
	}
	b := s.pool.get()
	s.held = append(s.held, b)
	return b
}

// cut returns the slabs filled since the last cut and starts the next
// line in a slab of its own, so that each slab holds one round's lines.
func (s *slab) cut() [][]byte {
	held := s.held
	s.cur, s.held = nil, nil
	return held
}

// slabPool holds the slabs and item lists of the rounds written, for the
// reader to fill again: at most those of the rounds in flight.
type slabPool struct {
	mu    sync.Mutex
	free  [][]byte
	lists [][]item
}

func (p *slabPool) get() []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(p.free); n > 0 {
		b := p.free[n-1]
		p.free = p.free[:n-1]
		return b[:0]
	}
	return make([]byte, 0, slabSize)
}

// items returns an empty list for a round of n items: a written round's
// when p (nil: none) holds one large enough.
func (p *slabPool) items(n int) []item {
	if p != nil {
		p.mu.Lock()
		defer p.mu.Unlock()
		if k := len(p.lists); k > 0 && cap(p.lists[k-1]) >= n {
			l := p.lists[k-1]
			p.lists = p.lists[:k-1]
			return l
		}
	}
	return make([]item, 0, n)
}

// put gives back a written round's slabs and item list, which nothing
// refers to any more.
func (p *slabPool) put(r round) {
	clear(r.items) // what the items refer to is the collector's again
	p.mu.Lock()
	defer p.mu.Unlock()
	p.free = append(p.free, r.slabs...)
	if r.items != nil {
		p.lists = append(p.lists, r.items[:0])
	}
}

// keep returns a copy of b that stays valid; it shares its memory with
// other copies, never with b.
func (s *slab) keep(b []byte) []byte {
	if len(b) > slabSize/8 {
		return bytes.Clone(b)
	}
	if cap(s.cur)-len(s.cur) < len(b) {
		s.cur = s.fresh()
	}
	start := len(s.cur)
	s.cur = append(s.cur, b...)
	return s.cur[start:len(s.cur):len(s.cur)]
}

// keepAround keeps b, whose members of a JSON object are b[i:j], as three
// pieces in one copy: head b[:i], obj those members between braces (an
// object of their own), tail b[j:].
func (s *slab) keepAround(b []byte, i, j int) (head, obj, tail []byte) {
	n := len(b) + 2
	buf := s.cur
	switch {
	case n > slabSize/8:
		buf = make([]byte, 0, n) // a large line alone
	case cap(buf)-len(buf) < n:
		buf = s.fresh()
		s.cur = buf
	}
	piece := func(start int) []byte { return buf[start:len(buf):len(buf)] }
	start := len(buf)
	buf = append(buf, b[:i]...)
	head = piece(start)
	start = len(buf)
	buf = append(append(append(buf, '{'), b[i:j]...), '}')
	obj = piece(start)
	start = len(buf)
	buf = append(buf, b[j:]...)
	tail = piece(start)
	if n <= slabSize/8 {
		s.cur = buf
	}
	return head, obj, tail
}

// csvRecords reads Storage Explorer CSV; a record's line is where it
// starts (a quoted field may hold newlines), its text every line of it,
// for --rejects.
func csvRecords(t *dynTable, r io.Reader, delim rune) func() (inputRecord, error) {
	cr := newCSVReader(bufio.NewReaderSize(r, 1<<20), delim)
	return func() (inputRecord, error) {
		row, err := cr.Read()
		var rj *csvReject
		if errors.As(err, &rj) {
			return inputRecord{line: int64(rj.Line), rej: &reject{Line: int64(rj.Line), Reason: rj.Reason, Input: rj.Input}}, nil
		}
		if err != nil {
			return inputRecord{}, err
		}
		line, text := cr.Line(), cr.Text()
		ent, perr := rowEntity(t, row)
		if perr != nil {
			return inputRecord{line: int64(line), rej: &reject{Line: int64(line), Reason: perr.Error(), Input: text}}, nil
		}
		return inputRecord{line: int64(line), ent: &item{line: int64(line), ent: ent, text: []byte(text), size: approxSize(ent)}}, nil
	}
}

// skipBOM skips a UTF-8 byte order mark at the start of the input, which
// Excel and other Windows programs write.
func skipBOM(br *bufio.Reader) {
	if b, err := br.Peek(3); err == nil && string(b) == "\ufeff" {
		_, _ = br.Discard(3)
	}
}

// fileSource is an input file's entities (JSON Lines or CSV, perhaps
// gzipped), read from the line the job's position names.
type fileSource struct {
	t      *dynTable
	rt     *table.Table[table.RawEntity] // JSON Lines read as raw entities, when set
	path   string
	format string
	delim  rune

	from    int64 // the first line to read
	resumed bool  // the job resumes an earlier run's
	read    atomic.Int64
	inp     *input
	next    func() (inputRecord, error)
	texts   slab // JSON Lines' text, its slabs given back by the writer
}

func (s *fileSource) check(j *job) (err error) {
	if tok := j.cp.Token; tok != "" {
		s.from, err = strconv.ParseInt(strings.TrimPrefix(tok, "line:"), 10, 64)
		if err != nil || !strings.HasPrefix(tok, "line:") {
			return fmt.Errorf("checkpoint: bad position %q", tok)
		}
		s.resumed = true
	}
	if s.inp, err = openInput(s.path, os.Stdin, &s.read); err != nil {
		return err
	}
	if s.format == formatCSV {
		s.next = csvRecords(s.t, s.inp.r, s.delim)
	} else {
		s.texts.pool = new(slabPool)
		s.next = jsonlRecords(s.t, s.rt, s.inp.r, &s.texts)
	}
	s.next, err = checkFirst(s.next, s.format, s.path)
	return err
}

func (*fileSource) open(context.Context, *job) error { return nil }

func (s *fileSource) close() {
	if s.inp != nil {
		s.inp.close()
	}
}

// rounds cuts the input into rounds from the job's position.
func (s *fileSource) rounds(ctx context.Context, ops int, out chan<- round) error {
	return readRounds(ctx, s.next, s.from, ops, &s.texts, out)
}
