package testenv

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tablekit/tablekit"
)

// Store is the method set of backup.Store, declared here because package
// backup imports query, whose tests import testenv.
type Store interface {
	Put(ctx context.Context, name string, r io.Reader) error
	Create(ctx context.Context, name string, r io.Reader) error
	Get(ctx context.Context, name string) (io.ReadCloser, error)
	List(ctx context.Context, prefix string) ([]string, error)
	Delete(ctx context.Context, name string) error
}

// CheckStore runs the contract of backup.Store against st, which must be
// empty (its container may not exist yet): a get from it, put and get
// back, overwrite, list by prefix in order, delete (twice), a missing
// file matching fs.ErrNotExist, Create refusing an existing name with
// fs.ErrExist and letting exactly one of racing writers win, and names
// that reach outside refused with tablekit.ErrInvalid before any I/O.
func CheckStore(t *testing.T, st Store) {
	t.Helper()
	ctx := Ctx(t)
	if _, err := st.Get(ctx, "a/one.json"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Get from an empty store: got %v, want fs.ErrNotExist", err)
	}
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
	checkCreate(t, st)
	for _, bad := range []string{"", "/abs", "a/../b", "a//b", "./a", "a/", `a\b`, "a\nb"} {
		if err := st.Put(ctx, bad, strings.NewReader("x")); !errors.Is(err, tablekit.ErrInvalid) {
			t.Errorf("Put(%q): got %v, want tablekit.ErrInvalid", bad, err)
		}
		if _, err := st.Get(ctx, bad); !errors.Is(err, tablekit.ErrInvalid) {
			t.Errorf("Get(%q): got %v, want tablekit.ErrInvalid", bad, err)
		}
		if err := st.Create(ctx, bad, strings.NewReader("x")); !errors.Is(err, tablekit.ErrInvalid) {
			t.Errorf("Create(%q): got %v, want tablekit.ErrInvalid", bad, err)
		}
	}
}

// checkCreate is CheckStore's part for Create: a new name, then the same
// name again, then writers racing for one name, each with its own body.
func checkCreate(t *testing.T, st Store) {
	t.Helper()
	ctx := Ctx(t)
	if err := st.Create(ctx, "c/once", strings.NewReader("first")); err != nil {
		t.Fatalf("Create(c/once): %v", err)
	}
	if err := st.Create(ctx, "c/once", strings.NewReader("second")); !errors.Is(err, fs.ErrExist) {
		t.Errorf("Create(c/once) again: got %v, want fs.ErrExist", err)
	}
	if got := getString(t, st, "c/once"); got != "first" {
		t.Errorf("c/once after a refused Create = %q, want %q", got, "first")
	}
	const writers = 6
	errs := make([]error, writers)
	var wg sync.WaitGroup
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = st.Create(ctx, "c/race", strings.NewReader(fmt.Sprintf("writer %d", i)))
		}()
	}
	wg.Wait()
	winner := -1
	for i, err := range errs {
		switch {
		case err == nil && winner >= 0:
			t.Errorf("Create(c/race): writers %d and %d both won", winner, i)
		case err == nil:
			winner = i
		case !errors.Is(err, fs.ErrExist):
			t.Errorf("Create(c/race) by writer %d: got %v, want nil or fs.ErrExist", i, err)
		}
	}
	if winner < 0 {
		t.Fatalf("Create(c/race): no writer won")
	}
	if got, want := getString(t, st, "c/race"), fmt.Sprintf("writer %d", winner); got != want {
		t.Errorf("c/race = %q, want the winner's %q", got, want)
	}
	for _, n := range []string{"c/once", "c/race"} {
		if err := st.Delete(ctx, n); err != nil {
			t.Errorf("Delete(%s): %v", n, err)
		}
	}
}

func getString(t *testing.T, st Store, name string) string {
	t.Helper()
	rc, err := st.Get(Ctx(t), name)
	if err != nil {
		t.Fatalf("Get(%s): %v", name, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatalf("Get(%s): %v", name, err)
	}
	return string(b)
}
