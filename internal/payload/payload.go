// Package payload reads a reply's body whole into one buffer made at the
// size its Content-Length gives, or a size hint when the reply has none.
//
// azcore's body download policy reads every body with io.ReadAll, which
// starts at 512 bytes and grows as append does (by a quarter once past a
// few kilobytes), copying each new buffer: for a 1.2 MB query page, three
// fifths of the bytes the page read allocated and about a sixth of its
// client CPU; for a 100-operation transaction's reply, about fifteen
// buffers. The requests whose bodies tablekit reads itself (core's query
// pages and transactions) skip that policy
// (runtime.SkipBodyDownload), and the first of tablekit's policies that
// needs the bytes reads them here; every later reader, azcore's included,
// gets the same bytes. A caller done with a body gives its buffer back
// (Recycle) for a later body, so that a scan does not allocate a page-sized
// buffer for each page (cleared, and bringing the next collection closer).
package payload

import (
	"io"
	"net/http"
	"slices"
	"sync"
)

// maxPresize bounds the buffer made before any byte arrives, so that a
// reply's claimed length or a hint cannot make a large allocation on its
// own; a longer body grows the buffer as it arrives.
const maxPresize = 16 << 20

// Body is a reply's body read whole: its bytes, or what cut the read short
// after them. It reads as the body did, for any later reader.
type Body struct {
	b   []byte
	off int
	err error
}

// Read implements io.Reader over the bytes read.
func (b *Body) Read(p []byte) (int, error) {
	if b.off >= len(b.b) {
		return 0, io.EOF
	}
	n := copy(p, b.b[b.off:])
	b.off += n
	return n, nil
}

// Close implements io.Closer; the connection's body was closed when it was
// read.
func (b *Body) Close() error { return nil }

// Read returns resp's body, read once: a Body already in place (read by an
// earlier call) gives its bytes and error again; otherwise the body is read
// to its end into a buffer of the reply's Content-Length, or of hint bytes
// when it has none (a chunked reply; 0 for no hint), and replaced with a
// Body. An error is the transport's, such as io.ErrUnexpectedEOF for a body
// cut short.
func Read(resp *http.Response, hint int) ([]byte, error) {
	if resp.Body == nil || resp.Body == http.NoBody {
		return nil, nil
	}
	if b, ok := resp.Body.(*Body); ok {
		return b.b, b.err
	}
	size := int64(-1) // unknown
	if hint > 0 {
		size = int64(hint)
	}
	if resp.ContentLength >= 0 {
		size = resp.ContentLength
	}
	buf, err := readAll(resp.Body, size)
	_ = resp.Body.Close()
	resp.Body = &Body{b: buf, err: err}
	return buf, err
}

// Done reports whether resp's body was read by Read: Read then gives its
// bytes and error again.
func Done(resp *http.Response) bool {
	_, ok := resp.Body.(*Body)
	return ok
}

// bufs holds buffers given back by Recycle (as *[]byte, so that Put does
// not allocate), by size class: a query page's run to a megabyte and more,
// a transaction reply's to tens of kilobytes, and one pool for both would
// hand pages' buffers to replies and drop replies' as too small for pages.
var bufs [2]sync.Pool

// class is the pool of a buffer of capacity size.
func class(size int64) int {
	if size < 256<<10 {
		return 0
	}
	return 1
}

// Recycle gives back the buffer of a body that Read returned, for a later
// Read to reuse: the caller must be the body's only reader and done with
// it, every value it decoded copied out (as codec's decoding does), and no
// other reader may be left (a Body whose bytes these are is not read
// again). Buffers made larger than maxPresize are left to the collector.
func Recycle(b []byte) {
	if cap(b) == 0 || cap(b) > maxPresize+1 {
		return
	}
	b = b[:0]
	bufs[class(int64(cap(b)))].Put(&b)
}

// readAll is io.ReadAll starting from a buffer of size bytes (plus one, so
// that the end is seen without growing it, and some room): a recycled one
// when it is large enough. A body of unknown size (-1: a query's first
// pages, chunked, before any page gave a hint) takes a recycled large
// buffer when there is one: a page would otherwise grow from 512 bytes.
func readAll(r io.Reader, size int64) ([]byte, error) {
	pool := &bufs[1]
	if size >= 0 {
		pool = &bufs[class(size+1)]
	}
	size = min(max(size, 511), maxPresize)
	var b []byte
	if p, _ := pool.Get().(*[]byte); p != nil && int64(cap(*p)) >= size+1 {
		b = (*p)[:0]
	} else {
		// A sixteenth more, so that the buffer, once recycled, fits the
		// next pages too: pages of the same query differ by a few bytes.
		b = make([]byte, 0, size+1+size/16)
	}
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return b, err
		}
		if len(b) == cap(b) {
			// Twice the size: append grows a large slice by a quarter,
			// which copies a page read without a size (a chunked reply,
			// the first of a query) about five times over.
			b = slices.Grow(b, len(b))
		}
	}
}
