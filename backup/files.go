package backup

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"

	"github.com/klauspost/compress/gzip"
)

// fileWriter writes gzip-compressed JSON Lines files to a store, each
// with its SHA-256, starting a new file when one holds limit bytes of
// lines (0: one file). The caller's goroutine only copies lines into
// chunks; a goroutine of the writer's own compresses them, hashes the
// compressed bytes as they come out and puts each file whole, beside the
// scan that produces the lines. At most chunkQueue chunks wait for it,
// so a slow store slows the scan instead of filling memory. close (or
// stop on an error path) ends the goroutine.
type fileWriter struct {
	st      Store
	dir     string // "files/<ID>/"
	role    string // dataPrefix, or a whole name such as keysFile
	limit   int
	cur     []byte // lines not yet handed to the compressor
	raw     int    // line bytes of the file being written
	lines   int64  // its lines
	n       int    // files ended so far, which names the next
	work    chan chunk
	stopped bool // work is closed
	free    chan []byte
	done    chan struct{} // closed when the compressor returns
	fail    chan struct{} // closed at the compressor's first error, in err
	err     error
	files   []File // the files put, in order: read after done
}

// chunk is a run of whole lines, or, with end set, the end of a file:
// lines is then its line count and name its name.
type chunk struct {
	ctx   context.Context
	data  []byte
	end   bool
	name  string
	lines int64
}

const (
	chunkBytes = 256 << 10 // lines per hand-over to the compressor
	chunkQueue = 4         // hand-overs waiting at most
)

func newFileWriter(st Store, dir, role string, limit int) *fileWriter {
	w := &fileWriter{st: st, dir: dir, role: role, limit: limit,
		work: make(chan chunk, chunkQueue), free: make(chan []byte, chunkQueue+2),
		done: make(chan struct{}), fail: make(chan struct{})}
	go w.compress(w.work)
	return w
}

// add appends one line, which must end in '\n'.
func (w *fileWriter) add(ctx context.Context, line []byte) error {
	if w.cur == nil {
		select {
		case w.cur = <-w.free:
		default:
			w.cur = make([]byte, 0, chunkBytes+chunkBytes/4)
		}
	}
	w.cur = append(w.cur, line...)
	w.raw += len(line)
	w.lines++
	if w.limit > 0 && w.raw >= w.limit {
		return w.end(ctx)
	}
	if len(w.cur) >= chunkBytes {
		return w.send(ctx, chunk{data: w.cur})
	}
	return nil
}

// send hands c to the compressor; the lines in w.cur go with it.
func (w *fileWriter) send(ctx context.Context, c chunk) error {
	if w.stopped {
		return errors.New("backup: a file writer used after it was closed")
	}
	c.ctx = ctx
	w.cur = nil
	select {
	case w.work <- c:
		return nil
	case <-w.fail:
		return w.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// end ends the file being written, if it holds a line (or, for a file of
// one role, always): its last lines and its end go to the compressor.
func (w *fileWriter) end(ctx context.Context) error {
	if w.lines == 0 && w.limit > 0 {
		return nil
	}
	name := w.dir + w.role
	if w.limit > 0 {
		name = fmt.Sprintf("%s%s%04d.jsonl.gz", w.dir, w.role, w.n)
	}
	err := w.send(ctx, chunk{data: w.cur, end: true, name: name, lines: w.lines})
	w.n++
	w.raw, w.lines = 0, 0
	return err
}

// close ends the last file, waits until every file is put and returns
// the compressor's error; w.files is then complete.
func (w *fileWriter) close(ctx context.Context) error {
	err := w.end(ctx)
	w.stop()
	if w.err != nil {
		return w.err
	}
	return err
}

// stop ends the compressor and waits for it; a file not ended is not
// put. Called again, it does nothing.
func (w *fileWriter) stop() {
	if !w.stopped {
		close(w.work)
		w.stopped = true
	}
	<-w.done
}

// compress is the writer's goroutine: it compresses each chunk into the
// file being built, hashing the compressed bytes as they are written, and
// puts the file at its end. After an error it only drains the queue.
func (w *fileWriter) compress(work <-chan chunk) {
	defer close(w.done)
	var buf bytes.Buffer
	h := sha256.New()
	gz, _ := gzip.NewWriterLevel(io.MultiWriter(&buf, h), gzip.BestSpeed)
	failed := func(err error) {
		w.err = err
		close(w.fail)
	}
	for c := range work {
		if w.err != nil {
			continue
		}
		if _, err := gz.Write(c.data); err != nil {
			failed(err)
			continue
		}
		if c.data != nil {
			select {
			case w.free <- c.data[:0]:
			default:
			}
		}
		if !c.end {
			continue
		}
		if err := gz.Close(); err != nil {
			failed(err)
			continue
		}
		f := File{Name: c.name, SHA256: hex.EncodeToString(h.Sum(nil)), Bytes: int64(buf.Len()), Lines: c.lines}
		if err := w.st.Put(c.ctx, c.name, bytes.NewReader(buf.Bytes())); err != nil {
			failed(err)
			continue
		}
		w.files = append(w.files, f)
		buf.Reset()
		h.Reset()
		gz.Reset(io.MultiWriter(&buf, h))
	}
}

// maxLine bounds a line read back: an entity's JSON is at most 2 MiB on
// Cosmos DB, and escaping can double a string's bytes.
const maxLine = 8 << 20

// verify reads f whole and checks its size and SHA-256 without using it:
// restore checks every file it needs before it writes anything.
func verify(ctx context.Context, st Store, f File) error {
	rc, err := st.Get(ctx, f.Name)
	if err != nil {
		return missing(f.Name, err)
	}
	defer rc.Close()
	h := sha256.New()
	n, err := io.Copy(h, rc)
	if err != nil {
		return err
	}
	return check(f, n, h)
}

func check(f File, n int64, h hash.Hash) error {
	if n != f.Bytes {
		return &CorruptError{File: f.Name, Reason: fmt.Sprintf("%d bytes, the manifest says %d", n, f.Bytes)}
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != f.SHA256 {
		return &CorruptError{File: f.Name, Reason: "SHA-256 " + got + " does not match the manifest's " + f.SHA256}
	}
	return nil
}

// missing turns a file the manifest lists but the store lacks into a
// *CorruptError; other errors are the store's.
func missing(name string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return &CorruptError{File: name, Reason: "missing", Err: err}
	}
	return err
}

// readLines hands each line of f (without its '\n') to each, checking the
// file's SHA-256 and line count at its end: a damage found then is a
// *CorruptError naming the file.
func readLines(ctx context.Context, st Store, f File, each func(line []byte) error) error {
	rc, err := st.Get(ctx, f.Name)
	if err != nil {
		return missing(f.Name, err)
	}
	defer rc.Close()
	h := sha256.New()
	cr := &countReader{r: io.TeeReader(rc, h)}
	gz, err := gzip.NewReader(bufio.NewReader(cr))
	if err != nil {
		return &CorruptError{File: f.Name, Reason: "not gzip", Err: err}
	}
	sc := bufio.NewScanner(gz)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	var lines int64
	for sc.Scan() {
		lines++
		if err := each(sc.Bytes()); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &CorruptError{File: f.Name, Reason: "unreadable", Err: err}
	}
	if _, err := io.Copy(io.Discard, cr); err != nil { // the rest, for the checksum
		return err
	}
	if err := check(f, cr.n, h); err != nil {
		return err
	}
	if lines != f.Lines {
		return &CorruptError{File: f.Name, Reason: fmt.Sprintf("%d lines, the manifest says %d", lines, f.Lines)}
	}
	return nil
}

type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
