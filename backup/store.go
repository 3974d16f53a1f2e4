package backup

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tablekit/tablekit/internal/errmap"
)

// Store is where backups are kept: named files, each written whole. A
// name is a relative, slash-separated path ("manifests/x.json"). Put must be
// atomic (a reader sees the whole file or none, also after a crash), since
// the manifest written last is what makes a backup exist. Create is Put
// that only one of several writers of a name can win, so that machines
// sharing one backup agree on which of them committed it. Get of a missing
// file returns an error matching fs.ErrNotExist. The directory store (Dir)
// is here; the blob container store is package backup/blobstore, so that
// this package does not pull azblob into programs that do not use it.
type Store interface {
	// Put writes the file name with everything r yields, replacing any
	// file of that name, atomically.
	Put(ctx context.Context, name string, r io.Reader) error
	// Create writes the file name atomically, as Put does, only if no
	// file of that name exists; otherwise, also when another writer
	// created it first, it returns an error matching fs.ErrExist and the
	// file is the other's, whole.
	Create(ctx context.Context, name string, r io.Reader) error
	// Get opens the file name for reading.
	Get(ctx context.Context, name string) (io.ReadCloser, error)
	// List returns the names starting with prefix, sorted.
	List(ctx context.Context, prefix string) ([]string, error)
	// Delete removes the file name; a missing file is not an error.
	Delete(ctx context.Context, name string) error
}

// CheckName reports whether name is a name a Store accepts: relative,
// slash-separated, no empty, "." or ".." element, no backslash or control
// character. Stores call it before any I/O, so that no name reaches
// outside the directory or container.
func CheckName(name string) error {
	if name == "" || strings.HasPrefix(name, "/") || strings.HasSuffix(name, "/") {
		return errmap.Invalidf("store", "name", "%q is not a relative file name", name)
	}
	for _, el := range strings.Split(name, "/") {
		if el == "" || el == "." || el == ".." {
			return errmap.Invalidf("store", "name", "%q has an empty, . or .. element", name)
		}
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f || r == '\\' {
			return errmap.Invalidf("store", "name", "%q holds a control character or a backslash", name)
		}
	}
	return nil
}

// DirStore keeps files in a directory of the local file system (or any
// mounted one). Put writes a temporary file beside the target, syncs it
// and renames it over the target, then syncs the directory: a crash
// leaves the old file or the new one, never a part.
type DirStore struct {
	root string
}

// Dir returns the store of the directory root, created on the first Put if
// missing. It does no I/O.
func Dir(root string) *DirStore { return &DirStore{root: root} }

// tmpPrefix marks Put's temporary files: List leaves them out; a crash
// may leave one behind, never under a file's own name.
const tmpPrefix = ".tmp-"

func (d *DirStore) path(name string) (string, error) {
	if err := CheckName(name); err != nil {
		return "", err
	}
	return filepath.Join(d.root, filepath.FromSlash(name)), nil
}

// Put writes name atomically (see DirStore).
func (d *DirStore) Put(ctx context.Context, name string, r io.Reader) error {
	return d.write(ctx, name, r, os.Rename)
}

// Create writes name atomically if it is missing: the temporary file is
// hard-linked to the name, which fails when the name exists, so of two
// writers exactly one wins.
func (d *DirStore) Create(ctx context.Context, name string, r io.Reader) error {
	return d.write(ctx, name, r, os.Link)
}

// write writes r to a temporary file beside name's, syncs it and gives it
// the name with place (os.Rename, or os.Link that refuses an existing
// name; the temporary file is then removed).
func (d *DirStore) write(ctx context.Context, name string, r io.Reader, place func(tmp, p string) error) (err error) {
	p, err := d.path(name)
	if err != nil {
		return err
	}
	dir := filepath.Dir(p)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	f, err := os.CreateTemp(dir, tmpPrefix+filepath.Base(p)+"-")
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	defer func() {
		os.Remove(f.Name()) // gone after a rename; a link's leftover otherwise
		if err != nil {
			f.Close()
			d.prune(dir)
		}
	}()
	if _, err = io.Copy(f, ctxReader{ctx, r}); err != nil {
		return fmt.Errorf("backup: writing %s: %w", name, err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	if err = place(f.Name(), p); err != nil {
		return fmt.Errorf("backup: %s: %w", name, err) // fs.ErrExist from Link
	}
	return syncDir(dir)
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return fmt.Errorf("backup: %w", err)
	}
	return nil
}

// Get opens name.
func (d *DirStore) Get(ctx context.Context, name string) (io.ReadCloser, error) {
	p, err := d.path(name)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("backup: %w", err) // fs.ErrNotExist when missing
	}
	return f, nil
}

// List returns the names under prefix, sorted; temporary files are left
// out, and a missing directory holds no names.
func (d *DirStore) List(ctx context.Context, prefix string) ([]string, error) {
	var names []string
	err := filepath.WalkDir(d.root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p == d.root {
				return filepath.SkipAll
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if e.IsDir() || strings.HasPrefix(e.Name(), tmpPrefix) {
			return nil
		}
		rel, err := filepath.Rel(d.root, p)
		if err != nil {
			return err
		}
		if name := filepath.ToSlash(rel); strings.HasPrefix(name, prefix) {
			names = append(names, name)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("backup: listing %s: %w", d.root, err)
	}
	slices.Sort(names)
	return names, nil
}

// Delete removes name and the directories it leaves empty; a missing
// file is not an error.
func (d *DirStore) Delete(ctx context.Context, name string) error {
	p, err := d.path(name)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("backup: %w", err)
	}
	d.prune(filepath.Dir(p))
	return nil
}

// prune removes dir and its parents below the root while they are empty,
// as a container holds no empty folders; Remove fails on one that holds a
// file, which stays.
func (d *DirStore) prune(dir string) {
	for root := filepath.Clean(d.root); dir != root && strings.HasPrefix(dir, root); dir = filepath.Dir(dir) {
		if os.Remove(dir) != nil {
			return
		}
	}
}

// TempFiles returns the names of the temporary files that writes killed
// before their rename left behind (List leaves them out), for Run to
// remove those of runs that have no manifest; Delete removes one.
func (d *DirStore) TempFiles(ctx context.Context) ([]string, error) {
	var names []string
	err := filepath.WalkDir(d.root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p == d.root {
				return filepath.SkipAll
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if e.IsDir() || !strings.HasPrefix(e.Name(), tmpPrefix) {
			return nil
		}
		rel, err := filepath.Rel(d.root, p)
		if err != nil {
			return err
		}
		names = append(names, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("backup: listing %s: %w", d.root, err)
	}
	slices.Sort(names)
	return names, nil
}

// ctxReader stops a copy when ctx is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
