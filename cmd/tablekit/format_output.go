package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"

	"github.com/klauspost/compress/gzip"
)

// extraBytes is the checkpoint's record of the output's length: what was
// flushed and synced when the token was saved.
const extraBytes = "output-bytes"

// output is an export's destination: stdout, or a file that a resumed run
// truncates to the length saved with the checkpoint, so that a line half
// written before a crash is cut off and written again whole. A name ending
// in .gz is written through gzip, one gzip member per sync: the saved
// length is then always the end of a member, and gzip readers read the
// members one after the other as one stream.
type output struct {
	f       *os.File // nil for stdout
	regular bool     // f can be truncated, sought and synced (not /dev/null or a pipe)
	created bool     // f did not exist before: discard removes it
	cw      countWriter
	gz      *gzip.Writer // nil unless the name ends in .gz
	inGz    bool         // the open gzip member holds bytes
	buf     *bufio.Writer
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// gzipTo is the writer under an output's buffer when it compresses.
type gzipTo struct{ o *output }

func (g gzipTo) Write(p []byte) (int, error) {
	g.o.inGz = true
	return g.o.gz.Write(p)
}

// openOutput opens path ("-" is stdout). resume is the checkpoint's Extra,
// nil on a fresh start; its extraBytes is the length to truncate to.
func openOutput(path string, stdout io.Writer, resume map[string]string) (*output, error) {
	return openOutputAt(path, stdout, resume, extraBytes)
}

func openOutputAt(path string, stdout io.Writer, resume map[string]string, key string) (*output, error) {
	o := &output{}
	if path == "-" {
		o.cw.w = stdout
		o.buf = bufio.NewWriterSize(&o.cw, 1<<20)
		return o, nil
	}
	_, statErr := os.Stat(path)
	o.created = errors.Is(statErr, fs.ErrNotExist)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, &usageCause{err.Error(), err} // opened before any request
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	o.regular = fi.Mode().IsRegular()
	var at int64
	if resume != nil {
		at, err = strconv.ParseInt(resume[key], 10, 64)
		if err != nil || at < 0 {
			f.Close()
			return nil, fmt.Errorf("checkpoint: bad %s %q", key, resume[key])
		}
		if o.regular && fi.Size() < at {
			f.Close()
			return nil, fmt.Errorf("%s has %d bytes, fewer than the %d the checkpoint saved: it was changed since; start again without the checkpoint", path, fi.Size(), at)
		}
	}
	if o.regular {
		// Only a regular file has a length to cut and a position to seek;
		// a device or a pipe (-o /dev/null) is written on as it is.
		if err := f.Truncate(at); err != nil {
			f.Close()
			return nil, err
		}
		if _, err := f.Seek(at, io.SeekStart); err != nil {
			f.Close()
			return nil, err
		}
	}
	o.f, o.cw = f, countWriter{w: f, n: at}
	var under io.Writer = &o.cw
	if isGzip(path) {
		o.gz = gzip.NewWriter(&o.cw)
		under = gzipTo{o}
	}
	o.buf = bufio.NewWriterSize(under, 1<<20)
	return o, nil
}

func (o *output) Write(p []byte) (int, error) { return o.buf.Write(p) }

// lineRoom is the room appendLine keeps in the buffer: a line up to it is
// built in place; a longer one is built apart and copied in.
const lineRoom = 64 << 10

// appendLine writes the line that build appends to its argument, and a
// newline, building it in the buffer's free space: the entity's bytes are
// copied once between the page and the buffer, not into a line of their
// own first. (bufio's Write of the free space it handed out copies the
// line onto itself, in cache.)
func (o *output) appendLine(build func([]byte) []byte) error {
	if o.buf.Available() < lineRoom {
		if err := o.buf.Flush(); err != nil {
			return err
		}
	}
	_, err := o.buf.Write(append(build(o.buf.AvailableBuffer()), '\n'))
	return err
}

// sync makes everything written so far durable and returns the output's
// length: only then may a checkpoint name a position after it.
func (o *output) sync() (int64, error) {
	if err := o.buf.Flush(); err != nil {
		return 0, err
	}
	if o.gz != nil && o.inGz {
		if err := o.gz.Close(); err != nil {
			return 0, err
		}
		o.gz.Reset(&o.cw)
		o.inGz = false
	}
	if o.regular {
		if err := o.f.Sync(); err != nil {
			return 0, err
		}
	}
	return o.cw.n, nil
}

func (o *output) close() error {
	_, err := o.sync()
	if o.f != nil {
		if cerr := o.f.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

// discard closes an output the run failed before writing to, and removes
// its file if the run created it: a failed export leaves no empty file.
func (o *output) discard() {
	o.close()
	if o.created && o.cw.n == 0 {
		os.Remove(o.f.Name())
	}
}
