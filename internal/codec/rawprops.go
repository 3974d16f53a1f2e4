package codec

import (
	"sync"
	"sync/atomic"
)

// A raw entity's properties are the one large allocation of its read (a
// kilobyte where its keys take tens of bytes). A program that is done
// with each entity as soon as it has it (tablekit export copies its line
// into the output and forgets it) gives the buffer back with
// ReleaseRawProps, and the next read takes it again: its heap then stays
// a few pages of read-ahead, not a megabyte more per page read, so the
// collector runs less and the kernel faults fewer fresh pages in (a
// twentieth of an export's CPU). Until a buffer is first given back, reads
// take none from the pool: a program that keeps its entities gets
// properties of exactly their length, and pays one atomic load.
const (
	propsStep = 64      // a pooled buffer's capacity is a multiple of it
	propsMax  = 8 << 10 // larger properties are never pooled
)

var (
	propsGiven atomic.Bool                       // a buffer was given back
	propsPool  [propsMax/propsStep + 1]sync.Pool // *[]byte, by capacity / propsStep
)

// newRawProps returns an empty buffer for n bytes of properties: a given
// back one of the size class, once buffers are given back.
func newRawProps(n int) []byte {
	if n > propsMax || !propsGiven.Load() {
		return make([]byte, 0, n)
	}
	c := (n + propsStep - 1) / propsStep
	if p, _ := propsPool[c].Get().(*[]byte); p != nil {
		return (*p)[:0]
	}
	return make([]byte, 0, c*propsStep)
}

// ReleaseRawProps gives back the Properties of a raw entity that a read
// returned, for a later read to reuse. The caller must hold the only
// reference left to those bytes and not use them again: a read fills the
// buffer with another entity. Any other slice is ignored, as are
// properties too large to pool.
func ReleaseRawProps(b []byte) {
	if !propsGiven.Load() {
		propsGiven.Store(true)
	}
	c := cap(b) / propsStep
	if c == 0 || c >= len(propsPool) || cap(b)%propsStep != 0 {
		return
	}
	b = b[:0]
	propsPool[c].Put(&b)
}
