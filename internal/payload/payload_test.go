package payload

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/iotest"
)

// TestRead: a body is read whole, into a buffer made once at its
// Content-Length (or the hint, for a reply without one), whatever the
// length claims; a body cut short is the transport's error, kept for every
// later call; later readers read the same bytes.
func TestRead(t *testing.T) {
	body := strings.Repeat(`{"value":[]}`, 1000) // 12,000 bytes
	tests := []struct {
		name    string
		r       io.Reader
		length  int64 // Content-Length; -1 none
		hint    int
		want    string
		wantCap int // 0: not checked
		wantErr error
	}{
		{"content length", strings.NewReader(body), int64(len(body)), 0, body, len(body) + 1, nil},
		{"chunked, hint", strings.NewReader(body), -1, len(body), body, len(body) + 1, nil},
		{"chunked, no hint", strings.NewReader(body), -1, 0, body, 0, nil},
		{"one byte at a time", iotest.OneByteReader(strings.NewReader(body)), int64(len(body)), 0, body, len(body) + 1, nil},
		{"longer than claimed", strings.NewReader(body), 10, 0, body, 0, nil},
		{"shorter than claimed", strings.NewReader(body), int64(len(body)) * 2, 0, body, 0, nil},
		{"claim beyond the bound", strings.NewReader(body), 1 << 40, 0, body, maxPresize + 1, nil},
		{"cut short", io.MultiReader(strings.NewReader(body[:100]), iotest.ErrReader(io.ErrUnexpectedEOF)), int64(len(body)), 0, body[:100], 0, io.ErrUnexpectedEOF},
		{"empty", strings.NewReader(""), 0, 0, "", 0, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp := &http.Response{Body: io.NopCloser(tc.r), ContentLength: tc.length}
			got, err := Read(resp, tc.hint)
			if string(got) != tc.want || !errors.Is(err, tc.wantErr) {
				t.Fatalf("got %d bytes, %v; want %d bytes, %v", len(got), err, len(tc.want), tc.wantErr)
			}
			if tc.wantCap > 0 && (cap(got) < tc.wantCap || cap(got) > tc.wantCap+tc.wantCap/16) {
				t.Errorf("buffer: got cap %d, want %d and a sixteenth at most (made once)", cap(got), tc.wantCap)
			}
			again, err2 := Read(resp, tc.hint)
			if !bytes.Equal(again, got) || !errors.Is(err2, tc.wantErr) || len(got) > 0 && &again[0] != &got[0] {
				t.Errorf("second Read: got %d bytes, %v; want the same buffer and error", len(again), err2)
			}
			later, err := io.ReadAll(resp.Body)
			if err != nil || string(later) != tc.want {
				t.Errorf("a later reader: got %d bytes, %v; want the %d bytes read", len(later), err, len(tc.want))
			}
			if err := resp.Body.Close(); err != nil {
				t.Errorf("close: %v", err)
			}
		})
	}
}

// TestReadNoBody: a reply without a body reads as empty.
func TestReadNoBody(t *testing.T) {
	for _, body := range []io.ReadCloser{nil, http.NoBody} {
		got, err := Read(&http.Response{Body: body, ContentLength: 0}, 0)
		if len(got) != 0 || err != nil {
			t.Errorf("got %q, %v; want nothing", got, err)
		}
	}
}

// TestReadCloses: the connection's body is closed once read, so that its
// connection goes back to the pool.
func TestReadCloses(t *testing.T) {
	c := &closeCounter{Reader: strings.NewReader("{}")}
	resp := &http.Response{Body: c, ContentLength: 2}
	if _, err := Read(resp, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(resp, 0); err != nil {
		t.Fatal(err)
	}
	if got, want := c.closed, 1; got != want {
		t.Errorf("closes: got %d, want %d", got, want)
	}
}

type closeCounter struct {
	io.Reader
	closed int
}

func (c *closeCounter) Close() error { c.closed++; return nil }

// TestRecycle: a body's buffer given back is the next body's when it is
// large enough (a pool may drop what it holds, so reuse is looked for over
// several rounds) and of its size class, never when it is too small, and
// every body reads as sent whatever buffer it had.
func TestRecycle(t *testing.T) {
	defer drain()
	read := func(body string) []byte {
		t.Helper()
		resp := &http.Response{Body: io.NopCloser(strings.NewReader(body)), ContentLength: int64(len(body))}
		got, err := Read(resp, 0)
		if err != nil || string(got) != body {
			t.Fatalf("got %q, %v; want %q", got, err, body)
		}
		return got
	}
	large, small := strings.Repeat("a", 4000), strings.Repeat("b", 1000)
	reused := 0
	for range 20 {
		drain()
		first := read(large)
		Recycle(first)
		if next := read(small); &next[:1][0] == &first[:1][0] {
			reused++
		}
	}
	if reused == 0 {
		t.Errorf("a recycled buffer large enough was never reused in 20 rounds")
	}
	// A body of unknown size takes a page's buffer.
	page := strings.Repeat("p", 300<<10)
	reused = 0
	for range 20 {
		drain()
		first := read(page)
		Recycle(first)
		resp := &http.Response{Body: io.NopCloser(strings.NewReader(small)), ContentLength: -1}
		if next, err := Read(resp, 0); err == nil && string(next) == small && &next[:1][0] == &first[:1][0] {
			reused++
		}
	}
	if reused == 0 {
		t.Errorf("a page's recycled buffer was never reused for a body of unknown size in 20 rounds")
	}
	// Never one too small; and a page's buffer is kept for pages: a
	// transaction reply's read (its size known) takes none.
	for _, c := range []struct{ name, first, next string }{
		{"too small", small, large},
		{"a page's", page, large},
	} {
		for range 20 {
			drain()
			first := read(c.first)
			Recycle(first)
			if next := read(c.next); &next[:1][0] == &first[:1][0] {
				t.Fatalf("%s: a recycled buffer of cap %d was reused for a body of %d bytes", c.name, cap(first), len(c.next))
			}
		}
	}
}

// drain empties the pools of recycled buffers.
func drain() {
	for i := range bufs {
		for bufs[i].Get() != nil {
		}
	}
}
