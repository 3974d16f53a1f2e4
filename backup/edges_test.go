package backup_test

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/backup"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/query"
	"github.com/tablekit/tablekit/table"
)

// TestWriterDuringBackup changes entities while backups run: a backup
// holds, for each key, a version current at some moment of its run, and
// the backup after the writer stopped holds the table exactly, so every
// change is in the backup it ran beside or the next.
func TestWriterDuringBackup(t *testing.T) {
	ctx := testenv.Ctx(t)
	svc := testenv.Azurite(t).NewService(t, nil)
	st := backup.Dir(t.TempDir())
	const keys = 200
	tb := newSeededTable(t, svc, keys)
	if _, err := backup.Run(ctx, svc, tb.Name(), st, nil); err != nil {
		t.Fatal(err)
	}

	// One writer, so each key's versions only grow: acked holds the last
	// acknowledged version of each key, issued the last one sent.
	var mu sync.Mutex
	acked, issued := map[string]int32{}, map[string]int32{}
	// The writer stops between writes, never by cancelling one: a
	// cancelled request may still be applied after the test's snapshot.
	var stopping atomic.Bool
	stop := func() { stopping.Store(true) }
	var writes atomic.Int64
	done := make(chan error, 1)
	go func() {
		rng := rand.New(rand.NewPCG(1, 2))
		for v := int32(1); v < 20000 && !stopping.Load(); v++ {
			e := entity(rng.IntN(keys), int(v))
			k := e.PartitionKey + "/" + e.RowKey
			mu.Lock()
			issued[k] = v
			mu.Unlock()
			if _, err := tb.Upsert(ctx, e, table.Replace); err != nil {
				done <- err
				return
			}
			mu.Lock()
			acked[k] = v
			mu.Unlock()
			writes.Add(1)
		}
		done <- nil
	}()
	copyMap := func(m map[string]int32) map[string]int32 {
		mu.Lock()
		defer mu.Unlock()
		c := make(map[string]int32, len(m))
		for k, v := range m {
			c[k] = v
		}
		return c
	}
	for round := range 2 {
		for deadline := time.Now().Add(time.Minute); writes.Load() < int64(50*(round+1)); time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) { // the writer failed or stalled
				stop()
				t.Fatalf("the writer made %d writes in a minute: %v", writes.Load(), <-done)
			}
		}
		lo := copyMap(acked)
		in, err := backup.Run(ctx, svc, tb.Name(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		hi := copyMap(issued)
		got := restoredVersions(t, svc, st, in.ID)
		if len(got) != keys {
			t.Errorf("backup %d holds %d entities, want %d", round, len(got), keys)
		}
		for k, v := range got {
			if v < lo[k] || v > hi[k] {
				t.Errorf("backup %d: %s at version %d, want one current during the run (%d to %d)", round, k, v, lo[k], hi[k])
			}
		}
	}
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	t.Logf("%d writes during the backups", writes.Load())
	want, _ := snapshot(t, tb)
	in, err := backup.Run(ctx, svc, tb.Name(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	restoreAndCompare(t, svc, st, in.ID, want)
}

// restoredVersions restores id into a new table and returns each key's
// Version.
func restoredVersions(t *testing.T, svc *table.Service, st backup.Store, id string) map[string]int32 {
	t.Helper()
	ctx := testenv.Ctx(t)
	name := testenv.TableName(t)
	t.Cleanup(func() { _ = svc.DeleteTable(context.Background(), name) })
	if _, err := backup.Restore(ctx, svc, name, st, &backup.RestoreOptions{ID: id}); err != nil {
		t.Fatal(err)
	}
	rt, err := table.New[table.Entity](svc, name)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int32{}
	for e, err := range query.New(rt).All(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		got[e.PartitionKey+"/"+e.RowKey] = e.Properties["Version"].(int32)
	}
	return got
}

// cancelStore cancels a run's context when it is about to put its n-th
// file, and forwards the Put with the cancelled context.
type cancelStore struct {
	backup.Store
	n      int
	puts   atomic.Int64
	cancel context.CancelFunc
}

func (c *cancelStore) Put(ctx context.Context, name string, r io.Reader) error {
	if c.puts.Add(1) == int64(c.n) {
		c.cancel()
	}
	return c.Store.Put(ctx, name, r)
}

// TestInterruptedRun cancels backups at every file they put, and at random
// moments: an interrupted backup is never listed or restorable, the next
// run completes, and its restore is the table.
func TestInterruptedRun(t *testing.T) {
	ctx := testenv.Ctx(t)
	svc := testenv.Azurite(t).NewService(t, nil)
	dir := t.TempDir()
	st := backup.Dir(dir)
	tb := newSeededTable(t, svc, 300)
	opts := &backup.Options{FileBytes: 16 << 10}
	if _, err := backup.Run(ctx, svc, tb.Name(), st, opts); err != nil {
		t.Fatal(err)
	}
	change(t, tb, 1, 10, 5, 7, 300)
	// A full backup puts its data files, keys, deleted keys, manifest.
	count := &cancelStore{Store: st, cancel: func() {}}
	full := *opts
	full.Full = true
	probe, err := backup.Run(ctx, svc, tb.Name(), count, &full)
	if err != nil {
		t.Fatal(err)
	}
	puts := int(count.puts.Load())
	if puts != len(probe.Files)+1 {
		t.Fatalf("a full backup put %d files, its manifest lists %d", puts, len(probe.Files))
	}
	change(t, tb, 2, 10, 5, 7, 300)
	before, err := backup.List(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	check := func(t *testing.T, err error) {
		t.Helper()
		after, lerr := backup.List(ctx, st)
		if lerr != nil {
			t.Fatal(lerr)
		}
		if err == nil {
			if len(after) != len(before)+1 {
				t.Fatalf("a run that succeeded left %d backups, want %d", len(after), len(before)+1)
			}
			before = after // it finished before the cancel: a backup like any
			return
		}
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("got %v, want context.Canceled", err)
		}
		if len(after) != len(before) {
			t.Errorf("an interrupted run left %d backups, want %d", len(after), len(before))
		}
	}
	points := []int{1, puts / 2, puts} // the first file, one between, the manifest
	if !testing.Short() {
		points = points[:0]
		for n := 1; n <= puts; n++ {
			points = append(points, n)
		}
	}
	for _, n := range points {
		for _, full := range []bool{true, false} {
			o := *opts
			o.Full = full
			cctx, cancel := context.WithCancel(ctx)
			_, err := backup.Run(cctx, svc, tb.Name(), &cancelStore{Store: st, n: n, cancel: cancel}, &o)
			cancel()
			if err == nil && full {
				t.Errorf("full run cancelled at put %d of %d succeeded", n, puts)
			}
			check(t, err)
		}
	}
	seed := time.Now().UnixNano()
	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	t.Logf("random cancels: seed %d", seed)
	for range testenv.Size(8, 3) {
		d := time.Duration(rng.Int64N(int64(300 * time.Millisecond)))
		cctx, cancel := context.WithTimeoutCause(ctx, d, context.Canceled)
		_, err := backup.Run(cctx, svc, tb.Name(), st, &backup.Options{Full: rng.IntN(2) == 0, FileBytes: 16 << 10})
		cancel()
		if errors.Is(err, context.DeadlineExceeded) {
			err = context.Canceled
		}
		check(t, err)
	}
	want, _ := snapshot(t, tb)
	in, err := backup.Run(ctx, svc, tb.Name(), st, opts)
	if err != nil {
		t.Fatal(err)
	}
	restoreAndCompare(t, svc, st, in.ID, want)
	// The interrupted runs' files are gone: every directory has a manifest.
	ents, err := os.ReadDir(filepath.Join(dir, "files"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if _, err := os.Stat(filepath.Join(dir, "manifests", e.Name()+".json")); err != nil && e.Name() != in.ID {
			t.Errorf("files/%s is left from an interrupted run: %v", e.Name(), err)
		}
	}
}

// TestDamagedFileRefused damages one file of a backup's chain at a time:
// Restore refuses, naming the file, and leaves the table uncreated.
func TestDamagedFileRefused(t *testing.T) {
	ctx := testenv.Ctx(t)
	svc := testenv.Azurite(t).NewService(t, nil)
	cases := []struct {
		name   string
		file   func(full, incr backup.Info) string
		damage func(path string) error
	}{
		{"byte flipped in the full backup's data", func(f, _ backup.Info) string { return f.Files[0].Name }, flipByte},
		{"incremental's keys file cut short", func(_, i backup.Info) string { return fileNamed(i, "keys") }, func(p string) error { return os.Truncate(p, 10) }},
		{"data file missing", func(f, _ backup.Info) string { return f.Files[1].Name }, os.Remove},
		{"byte appended to the incremental's data", func(_, i backup.Info) string { return i.Files[0].Name }, func(p string) error {
			f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
			if err == nil {
				_, err = f.Write([]byte{0})
				f.Close()
			}
			return err
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tb := newSeededTable(t, svc, 200)
			dir := t.TempDir()
			st := backup.Dir(dir)
			o := &backup.Options{FileBytes: 8 << 10}
			full, err := backup.Run(ctx, svc, tb.Name(), st, o)
			if err != nil {
				t.Fatal(err)
			}
			change(t, tb, 1, 10, 5, 7, 200)
			incr, err := backup.Run(ctx, svc, tb.Name(), st, o)
			if err != nil {
				t.Fatal(err)
			}
			name := tc.file(full, incr)
			if err := tc.damage(filepath.Join(dir, filepath.FromSlash(name))); err != nil {
				t.Fatal(err)
			}
			target := testenv.TableName(t)
			_, err = backup.Restore(ctx, svc, target, st, nil)
			var ce *backup.CorruptError
			if !errors.As(err, &ce) || !errors.Is(err, backup.ErrCorrupt) || ce.File != name {
				t.Fatalf("got %v, want a *CorruptError naming %s", err, name)
			}
			if !strings.Contains(err.Error(), name) {
				t.Errorf("the message does not name the file: %v", err)
			}
			rt, _ := table.New[table.Entity](svc, target)
			for _, err := range query.New(rt).Limit(1).All(ctx) {
				if !errors.Is(err, tablekit.ErrTableNotFound) {
					t.Errorf("the target table: got %v, want tablekit.ErrTableNotFound (never created)", err)
				}
			}
		})
	}
}

func fileNamed(in backup.Info, part string) string {
	for _, f := range in.Files {
		if strings.Contains(f.Name, part) {
			return f.Name
		}
	}
	return ""
}

func flipByte(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	b[len(b)/2] ^= 0x40
	return os.WriteFile(path, b, 0o644)
}

// TestKilledWritesLeftovers plants the temporary files a process killed
// in the middle of a directory store's writes leaves (a data file of a
// run without a manifest, a manifest being written, one beside a finished
// backup's files): the next run removes those of runs that have no
// manifest and keeps the rest.
func TestKilledWritesLeftovers(t *testing.T) {
	ctx := testenv.Ctx(t)
	svc := testenv.Azurite(t).NewService(t, nil)
	dir := t.TempDir()
	st := backup.Dir(dir)
	tb := newSeededTable(t, svc, 20)
	first, err := backup.Run(ctx, svc, tb.Name(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	const killed = "20000101T000000.000Z" // older than any run here
	files := []struct {
		name string
		kept bool
	}{
		{"files/" + killed + "/.tmp-data-0000.jsonl.gz-123", false},
		{"manifests/.tmp-" + killed + ".json-456", false},
		{"files/" + first.ID + "/.tmp-data-0001.jsonl.gz-789", true},
		{"notes/.tmp-mine", true}, // not a backup's: left alone
	}
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("part of a file"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := backup.Run(ctx, svc, tb.Name(), st, nil); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		_, err := os.Stat(filepath.Join(dir, filepath.FromSlash(f.name)))
		if got := err == nil; got != f.kept {
			t.Errorf("%s after the next run: present %v, want %v", f.name, got, f.kept)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "files", killed)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("files/%s after the next run: got %v, want it removed", killed, err)
	}
}

// failStore fails its n-th Put with errFull, as a full disk would.
type failStore struct {
	backup.Store
	n    int
	puts atomic.Int64
}

var errFull = errors.New("no space left on device")

func (f *failStore) Put(ctx context.Context, name string, r io.Reader) error {
	if f.puts.Add(1) == int64(f.n) {
		return errFull
	}
	return f.Store.Put(ctx, name, r)
}

// TestStoreFails fails the store's Put of a data file, of the key set and
// of the manifest: the files are put beside the scan, so the error comes
// back from Run however far the scan is, and no backup is listed.
func TestStoreFails(t *testing.T) {
	ctx := testenv.Ctx(t)
	svc := testenv.Azurite(t).NewService(t, nil)
	tb := newSeededTable(t, svc, 300)
	opts := &backup.Options{FileBytes: 4 << 10}
	probe := &failStore{Store: backup.Dir(t.TempDir())}
	in, err := backup.Run(ctx, svc, tb.Name(), probe, opts)
	if err != nil {
		t.Fatal(err)
	}
	puts := int(probe.puts.Load())
	if puts != len(in.Files)+1 || len(in.Files) < 5 {
		t.Fatalf("a full backup put %d files and lists %d, want several and one more put (the manifest)", puts, len(in.Files))
	}
	tests := []struct {
		name string
		n    int
	}{
		{"first data file", 1},
		{"a data file in the middle", len(in.Files) / 2},
		{"key set", puts - 2},
		{"manifest", puts},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := backup.Dir(t.TempDir())
			_, err := backup.Run(ctx, svc, tb.Name(), &failStore{Store: st, n: tt.n}, opts)
			if got, want := err, errFull; !errors.Is(got, want) {
				t.Fatalf("Run with put %d failing: got %v, want %v", tt.n, got, want)
			}
			infos, err := backup.List(ctx, st)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := len(infos), 0; got != want {
				t.Errorf("backups listed after a failed put: got %d, want %d", got, want)
			}
		})
	}
}
