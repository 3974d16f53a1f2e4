package backup

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
)

// fileWriter writes gzip-compressed JSON Lines files to a store, each
// with its SHA-256, starting a new file when one holds limit bytes of
// lines (0: one file). A file is compressed in memory and put whole.
type fileWriter struct {
	st    Store
	dir   string // "files/<ID>/"
	role  string // dataPrefix, or a whole name such as keysFile
	limit int
	buf   bytes.Buffer
	gz    *gzip.Writer
	raw   int
	lines int64
	files []File
}

func newFileWriter(st Store, dir, role string, limit int) *fileWriter {
	w := &fileWriter{st: st, dir: dir, role: role, limit: limit}
	w.gz, _ = gzip.NewWriterLevel(&w.buf, gzip.BestSpeed)
	return w
}

// add appends one line, which must end in '\n'.
func (w *fileWriter) add(ctx context.Context, line []byte) error {
	if _, err := w.gz.Write(line); err != nil {
		return err
	}
	w.raw += len(line)
	w.lines++
	if w.limit > 0 && w.raw >= w.limit {
		return w.flush(ctx)
	}
	return nil
}

// flush puts the file being written, if it holds a line (or, for a file
// of one role, always), and starts the next.
func (w *fileWriter) flush(ctx context.Context) error {
	if w.lines == 0 && w.limit > 0 {
		return nil
	}
	if err := w.gz.Close(); err != nil {
		return err
	}
	name := w.dir + w.role
	if w.limit > 0 {
		name = fmt.Sprintf("%s%s%04d.jsonl.gz", w.dir, w.role, len(w.files))
	}
	sum := sha256.Sum256(w.buf.Bytes())
	f := File{Name: name, SHA256: hex.EncodeToString(sum[:]), Bytes: int64(w.buf.Len()), Lines: w.lines}
	if err := w.st.Put(ctx, name, bytes.NewReader(w.buf.Bytes())); err != nil {
		return err
	}
	w.files = append(w.files, f)
	w.buf.Reset()
	w.gz.Reset(&w.buf)
	w.raw, w.lines = 0, 0
	return nil
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
