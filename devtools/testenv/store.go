package testenv

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"slices"
	"strings"
	"testing"

	"github.com/tablekit/tablekit"
)

// Store is the method set of backup.Store, declared here because package
// backup imports query, whose tests import testenv.
type Store interface {
	Put(ctx context.Context, name string, r io.Reader) error
	Get(ctx context.Context, name string) (io.ReadCloser, error)
	List(ctx context.Context, prefix string) ([]string, error)
	Delete(ctx context.Context, name string) error
}

// CheckStore runs the contract of backup.Store against st, which must be
// empty: put and get back, overwrite, list by prefix in order, delete
// (twice), a missing file matching fs.ErrNotExist, and names that reach
// outside refused with tablekit.ErrInvalid before any I/O.
func CheckStore(t *testing.T, st Store) {
	t.Helper()
	ctx := Ctx(t)
	files := []struct{ name, body string }{
		{"a/one.json", "first"},
		{"a/two.bin", strings.Repeat("x", 3<<20)}, // several blocks
		{"b/three", ""},
		{"a/one.json", "second"}, // replaces the first
	}
	for _, f := range files {
		if err := st.Put(ctx, f.name, strings.NewReader(f.body)); err != nil {
			t.Fatalf("Put(%s): %v", f.name, err)
		}
	}
	for _, f := range files[1:] {
		rc, err := st.Get(ctx, f.name)
		if err != nil {
			t.Fatalf("Get(%s): %v", f.name, err)
		}
		got, err := io.ReadAll(rc)
		rc.Close()
		if err != nil || !bytes.Equal(got, []byte(f.body)) {
			t.Errorf("Get(%s) = %d bytes, %v; want %d bytes", f.name, len(got), err, len(f.body))
		}
	}
	lists := []struct {
		prefix string
		want   []string
	}{
		{"", []string{"a/one.json", "a/two.bin", "b/three"}},
		{"a/", []string{"a/one.json", "a/two.bin"}},
		{"a/t", []string{"a/two.bin"}},
		{"c/", nil},
	}
	for _, l := range lists {
		got, err := st.List(ctx, l.prefix)
		if err != nil || !slices.Equal(got, l.want) {
			t.Errorf("List(%q) = %q, %v; want %q", l.prefix, got, err, l.want)
		}
	}
	for range 2 {
		if err := st.Delete(ctx, "a/two.bin"); err != nil {
			t.Errorf("Delete(a/two.bin): %v", err)
		}
	}
	if _, err := st.Get(ctx, "a/two.bin"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Get of a deleted file: got %v, want fs.ErrNotExist", err)
	}
	if got, err := st.List(ctx, "a/"); err != nil || !slices.Equal(got, []string{"a/one.json"}) {
		t.Errorf("List(a/) after Delete = %q, %v; want [a/one.json]", got, err)
	}
	for _, bad := range []string{"", "/abs", "a/../b", "a//b", "./a", "a/", `a\b`, "a\nb"} {
		if err := st.Put(ctx, bad, strings.NewReader("x")); !errors.Is(err, tablekit.ErrInvalid) {
			t.Errorf("Put(%q): got %v, want tablekit.ErrInvalid", bad, err)
		}
		if _, err := st.Get(ctx, bad); !errors.Is(err, tablekit.ErrInvalid) {
			t.Errorf("Get(%q): got %v, want tablekit.ErrInvalid", bad, err)
		}
	}
}
