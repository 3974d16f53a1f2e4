package core

import (
	"bytes"
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
		b := &lentBody{r: bytes.NewReader([]byte("a transaction body"))}
		if err := c.use(b); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := b.done.Load(); got != c.want {
			t.Errorf("%s: done %v, want %v", c.name, got, c.want)
		}
	}
}
