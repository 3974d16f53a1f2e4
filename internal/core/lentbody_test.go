package core

import (
	"io"
	"testing"
)

// TestLentBodyDone: a transaction body's buffer may be reused only when
// its reader was read to the end by one send: not after a partial read,
// nor after a rewind that followed a read (the body sent again).
func TestLentBodyDone(t *testing.T) {
	cases := []struct {
		name string
		use  func(b *lentBody) error
		want bool
	}{
		{"unread", func(*lentBody) error { return nil }, false},
		{"read to the end", func(b *lentBody) error { _, err := io.ReadAll(b); return err }, true},
		{"rewound before the read", func(b *lentBody) error {
			if _, err := b.Seek(0, io.SeekStart); err != nil {
				return err
			}
			_, err := io.ReadAll(b)
			return err
		}, true},
		{"partly read", func(b *lentBody) error { _, err := b.Read(make([]byte, 3)); return err }, false},
		{"read, rewound, read again", func(b *lentBody) error {
			if _, err := io.ReadAll(b); err != nil {
				return err
			}
			if _, err := b.Seek(0, io.SeekStart); err != nil {
				return err
			}
			_, err := io.ReadAll(b)
			return err
		}, false},
	}
	for _, c := range cases {
		b := new(lentBody)
		b.r.Reset([]byte("a transaction body"))
		if err := c.use(b); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := b.done.Load(); got != c.want {
			t.Errorf("%s: done %v, want %v", c.name, got, c.want)
		}
	}
}

// TestLentBodyReusable: a lent buffer goes back to its pool only after one
// attempt that read it to the end, and only when it is no larger than the
// pool's limit.
func TestLentBodyReusable(t *testing.T) {
	cases := []struct {
		name        string
		attempts    int32
		read        bool
		size, limit int
		want        bool
	}{
		{"one attempt, read", 1, true, 1024, maxPooled, true},
		{"one attempt, at the limit", 1, true, maxPooled, maxPooled, true},
		{"one attempt, over the limit", 1, true, maxPooled + 1, maxPooled, false},
		{"one attempt, unread", 1, false, 1024, maxPooled, false},
		{"two attempts", 2, true, 1024, maxPooled, false},
		{"no attempt", 0, true, 1024, maxPooled, false},
	}
	for _, c := range cases {
		b := new(lentBody)
		b.r.Reset([]byte("an entity"))
		if c.read {
			if _, err := io.ReadAll(b); err != nil {
				t.Fatal(err)
			}
		}
		b.attempts.Store(c.attempts)
		if got := b.reusable(c.size, c.limit); got != c.want {
			t.Errorf("%s: reusable %v, want %v", c.name, got, c.want)
		}
	}
}
