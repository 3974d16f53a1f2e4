package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
)

// extraBytes is the checkpoint's record of the output's length: what was
// flushed and synced when the token was saved.
const extraBytes = "output-bytes"

// output is an export's destination: stdout, or a file that a resumed run
// truncates to the length saved with the checkpoint, so that a line half
// written before a crash is cut off and written again whole.
type output struct {
	f   *os.File // nil for stdout
	cw  countWriter
	buf *bufio.Writer
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
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	var at int64
	if resume != nil {
		at, err = strconv.ParseInt(resume[key], 10, 64)
		if err != nil || at < 0 {
			f.Close()
			return nil, fmt.Errorf("checkpoint: bad %s %q", key, resume[key])
		}
		if fi, err := f.Stat(); err == nil && fi.Size() < at {
			f.Close()
			return nil, fmt.Errorf("%s has %d bytes, fewer than the %d the checkpoint saved: it was changed since; start again without the checkpoint", path, fi.Size(), at)
		}
	}
	if err := f.Truncate(at); err != nil {
		f.Close()
		return nil, err
	}
	if _, err := f.Seek(at, io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	o.f, o.cw = f, countWriter{w: f, n: at}
	o.buf = bufio.NewWriterSize(&o.cw, 1<<20)
	return o, nil
}

func (o *output) Write(p []byte) (int, error) { return o.buf.Write(p) }

// sync makes everything written so far durable and returns the output's
// length: only then may a checkpoint name a position after it.
func (o *output) sync() (int64, error) {
	if err := o.buf.Flush(); err != nil {
		return 0, err
	}
	if o.f != nil {
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
