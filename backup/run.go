package backup

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/internal/errmap"
	"github.com/tablekit/tablekit/query"
	"github.com/tablekit/tablekit/table"
)

// Changes is how an incremental backup finds the entities changed since
// the previous one.
type Changes int

const (
	// ChangesByBackend: by Timestamp on Table Storage, by ETag on Cosmos
	// DB, where Timestamp filters return nothing.
	ChangesByBackend Changes = iota
	// ChangesByTimestamp reads the entities whose Timestamp is at or after
	// the previous backup's start minus Options.Overlap: one filtered scan.
	ChangesByTimestamp
	// ChangesByETag compares each key's ETag, from the keys-only scan every
	// backup makes, with the one the previous backup stored, and reads
	// each changed entity with a point read.
	ChangesByETag
)

// Defaults of Options.
const (
	// DefaultOverlap covers the clock difference between this machine and
	// the service, and writes that got their Timestamp before a backup
	// started but became visible after its scan passed them.
	DefaultOverlap = 10 * time.Minute
	// DefaultFileBytes is the JSON bytes per data file, before compression.
	DefaultFileBytes = 64 << 20
)

// Options tune Run; nil and zero fields mean the defaults. They are never
// modified.
type Options struct {
	// Full forces a full backup; the first backup of a store is full anyway.
	Full bool
	// Changes chooses how an incremental backup finds changes; the zero
	// value is ChangesByBackend.
	Changes Changes
	// Overlap is how far before the previous backup's start a Timestamp
	// scan begins; DefaultOverlap when zero. Entities read again in the
	// overlap with an unchanged ETag are not stored again.
	Overlap time.Duration
	// Parallelism is the requests in flight, as query.ParallelOptions has
	// it (1 to query.MaxParallelism); query.DefaultParallelism when zero.
	Parallelism int
	// FileBytes is the JSON bytes of entities per data file; each file is
	// compressed in memory, beside the scan, before it is stored.
	// DefaultFileBytes when zero.
	FileBytes int
	// Share, when set, makes this Run one of Share.Count that together
	// take the backup Share.ID, each over its own PartitionKey range.
	Share *Share
}

func (o *Options) resolve(svc *table.Service) (Options, error) {
	var r Options
	if o != nil {
		r = *o
	}
	switch {
	case r.Changes < ChangesByBackend || r.Changes > ChangesByETag:
		return r, errmap.Invalidf("backup", "Changes", "unknown value %d", r.Changes)
	case r.Overlap < 0:
		return r, errmap.Invalid("backup", "Overlap", "is negative")
	case r.Parallelism < 0 || r.Parallelism > query.MaxParallelism:
		return r, errmap.Invalidf("backup", "Parallelism", "want 0 to %d", query.MaxParallelism)
	case r.FileBytes < 0:
		return r, errmap.Invalid("backup", "FileBytes", "is negative")
	}
	if r.Share != nil {
		if err := r.Share.check(); err != nil {
			return r, err
		}
	}
	if r.Changes == ChangesByBackend {
		r.Changes = ChangesByTimestamp
		if svc.Backend() == table.CosmosDB {
			r.Changes = ChangesByETag
		}
	}
	if r.Overlap == 0 {
		r.Overlap = DefaultOverlap
	}
	if r.Parallelism == 0 {
		r.Parallelism = query.DefaultParallelism
	}
	if r.FileBytes == 0 {
		r.FileBytes = DefaultFileBytes
	}
	return r, nil
}

func (c Changes) String() string {
	if c == ChangesByETag {
		return "etag"
	}
	return "timestamp"
}

// Run backs up the table name of svc into st: full the first time (or
// with Options.Full), else incremental, with its manifest written last.
// With Options.Share it backs up its share and returns the backup's Info
// if it landed last, else its part with Info.Pending set.
// Errors: tablekit.ErrInvalid for options or a store of another table's
// backups; the table's and the store's errors.
func Run(ctx context.Context, svc *table.Service, name string, st Store, o *Options) (Info, error) {
	opts, err := o.resolve(svc)
	if err != nil {
		return Info{}, err
	}
	sh := opts.Share
	t, err := table.New[table.RawEntity](svc, name)
	if err != nil {
		return Info{}, err
	}
	infos, err := List(ctx, st)
	if err != nil {
		return Info{}, err
	}
	started := time.Now().UTC()
	id := started.Format(IDLayout)
	if sh != nil {
		if in, ok := find(infos, sh.ID); ok {
			return *in, nil // every share landed already: nothing left to do
		}
		id, started = sh.ID, sh.started()
	}
	var prev *Info
	if len(infos) > 0 {
		prev = &infos[len(infos)-1]
		if prev.Table != name {
			return Info{}, errmap.Invalidf("backup", "store", "holds backups of table %q, not %q", prev.Table, name)
		}
	}
	full := opts.Full || prev == nil
	if prev != nil && id <= prev.ID {
		if sh != nil {
			return Info{}, errmap.Invalidf("backup", "Share", "ID %s is not after the last backup's, %s", id, prev.ID)
		}
		return Info{}, errmap.Invalidf("backup", "clock", "this machine's clock (%s) is behind the last backup's ID %s", id, prev.ID)
	}
	if err := removeOrphans(ctx, st, infos, id); err != nil {
		return Info{}, err
	}
	dir := filesDir + id + "/"
	if sh != nil {
		if p, err := readShare(ctx, st, sh.manifest()); err == nil {
			// This share landed before it was stopped: only the commit is left.
			return finishShare(ctx, st, sh, p.Info)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return Info{}, err
		}
		if err := clearShare(ctx, st, sh); err != nil {
			return Info{}, err
		}
		dir = sh.dir()
	}
	r := &run{t: t, st: st, opts: opts, written: keySet{}, base: query.New(t)}
	if sh != nil {
		r.base = r.base.Where(sh.filter())
	}
	r.data = newFileWriter(st, dir, dataPrefix, opts.FileBytes)
	defer r.data.stop()
	if !full {
		all, err := prev.keys(ctx, st)
		if err != nil {
			return Info{}, err
		}
		r.prev = keySet{}
		for k, et := range all {
			if sh.holds(k) { // a share's deletes are of its own keys
				r.prev[k] = et
			}
		}
	}
	if err := r.segment(ctx); err != nil {
		return Info{}, err
	}
	if full || opts.Changes == ChangesByTimestamp {
		q := r.base
		if !full {
			q = q.Where(query.Timestamp.Ge(query.DateTime(prev.Started.Add(-opts.Overlap))))
		}
		if err := r.scan(ctx, q); err != nil {
			return Info{}, err
		}
	}
	// The keys in the table: a full backup's data scan read every one (a
	// key deleted after the scan passed it is the next backup's delete);
	// an incremental one reads them with a keys-only scan, to find deletes.
	scanned := r.written
	if !full {
		if scanned, err = r.keys(ctx); err != nil {
			return Info{}, err
		}
	}
	if !full && opts.Changes == ChangesByETag {
		if err := r.fetchChanged(ctx, scanned); err != nil {
			return Info{}, err
		}
	}
	if err := r.data.close(ctx); err != nil {
		return Info{}, err
	}
	// The key set as of this backup: the keys the scan found whose data
	// this backup or an earlier one holds. A key the scan found but whose
	// entity came after the data scan passed it is the next backup's.
	state, deleted := keySet{}, keySet{}
	for k := range scanned {
		if et, ok := r.written[k]; ok {
			state[k] = et
		} else if et, ok := r.prev[k]; ok {
			state[k] = et
		}
	}
	for _, s := range []keySet{r.prev, r.written} {
		for k := range s {
			if _, ok := scanned[k]; !ok {
				deleted[k] = ""
			}
		}
	}
	kw, dw := newFileWriter(st, dir, keysFile, 0), newFileWriter(st, dir, deletedFile, 0)
	if err := writeKeys(ctx, kw, state); err != nil {
		return Info{}, err
	}
	if err := writeKeys(ctx, dw, deleted); err != nil {
		return Info{}, err
	}
	in := Info{
		Format: manifestFormat, ID: id, Table: name, Full: full,
		Started: started, Finished: time.Now().UTC(), Changes: opts.Changes.String(),
		Written: int64(len(r.written)), Deleted: int64(len(deleted)), Entities: int64(len(state)),
		Files: append(append(r.data.files, kw.files...), dw.files...),
	}
	if !full {
		in.Base = prev.ID
	}
	for _, f := range in.Files {
		in.Bytes += f.Bytes
	}
	if sh != nil {
		b, err := json.MarshalIndent(shareInfo{Share: *sh, Info: in}, "", "  ")
		if err != nil {
			return Info{}, err
		}
		if err := st.Put(ctx, sh.manifest(), bytes.NewReader(b)); err != nil {
			return Info{}, err
		}
		return finishShare(ctx, st, sh, in)
	}
	if err := commit(ctx, st, &in); err != nil {
		return Info{}, err
	}
	return in, nil
}

// finishShare commits the backup if every share has landed; else it
// returns the share's part with the shares still pending.
func finishShare(ctx context.Context, st Store, sh *Share, part Info) (Info, error) {
	in, pending, err := completeShares(ctx, st, sh)
	if err != nil || pending == 0 {
		return in, err
	}
	part.Pending = pending
	return part, nil
}

// run is the state of one Run.
type run struct {
	t       *table.Table[table.RawEntity]
	st      Store
	opts    Options
	segs    []query.Segment
	prev    keySet // the previous backup's key set; nil for a full backup
	mu      sync.Mutex
	data    *fileWriter
	written keySet // stored by this backup
	line    []byte
	base    query.Query[table.RawEntity] // the whole table, or a share's range
}

// splitRequests bounds the keys-only queries that find the segments'
// bounds. Split's default (80 to 130 queries of up to 1,000 keys) reads
// every key of a table of 100,000 entities, a second scan of it that cost
// the service as much as the backup's own; a dozen find bounds good enough
// for segments that are handed out as workers free up, as `tablekit export`
// splits its scan.
const splitRequests = 12

// segment splits the table's keys into segments for the parallel scans,
// four per request in flight, so that a large segment does not leave the
// others idle at the end.
func (r *run) segment(ctx context.Context) error {
	if r.opts.Parallelism == 1 {
		return nil
	}
	sp, err := r.base.Split(ctx, r.opts.Parallelism*4, &query.SplitOptions{Requests: splitRequests})
	if err != nil {
		return err
	}
	r.segs = sp.Segments()
	return nil
}

func (r *run) parallel(q query.Query[table.RawEntity]) (*query.ParallelCursor[table.RawEntity], error) {
	return q.PageSize(query.MaxPageSize).Parallel(r.segs, &query.ParallelOptions{Parallelism: r.opts.Parallelism})
}

// scan stores the entities q reads, except those whose version the
// previous backup holds already (read again in the overlap).
func (r *run) scan(ctx context.Context, q query.Query[table.RawEntity]) error {
	c, err := r.parallel(q)
	if err != nil {
		return err
	}
	for e, err := range c.All(ctx) {
		if err != nil {
			return err
		}
		if err := r.store(ctx, e); err != nil {
			return err
		}
	}
	return nil
}

// store writes e's line unless this backup or the previous one holds that
// version: an entity seen twice is stored once. The line is the service's
// JSON form as package table's codec writes it (every EDM type annotated,
// Timestamp added: Table.AppendJSON), as `tablekit export` writes its JSON
// Lines, so a data file, decompressed, is what `tablekit import` reads.
func (r *run) store(ctx context.Context, e table.RawEntity) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := key{e.PartitionKey, e.RowKey}
	if et, ok := r.prev[k]; ok && et == string(e.ETag) {
		return nil
	}
	if _, ok := r.written[k]; ok {
		return nil
	}
	b, err := r.t.AppendJSON(r.line[:0], e)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	r.line = b
	r.written[k] = string(e.ETag)
	return r.data.add(ctx, b)
}

// keys reads every key and its ETag with a keys-only parallel scan.
func (r *run) keys(ctx context.Context) (keySet, error) {
	c, err := r.parallel(r.base.Select())
	if err != nil {
		return nil, err
	}
	s := keySet{}
	for e, err := range c.All(ctx) {
		if err != nil {
			return nil, err
		}
		s[key{e.PartitionKey, e.RowKey}] = string(e.ETag)
	}
	return s, nil
}

// fetchChanged reads, with point reads in parallel, every entity whose
// key is new or whose ETag differs from the previous backup's; one gone
// since the scan is left out (the scan's key is then not in the state).
func (r *run) fetchChanged(ctx context.Context, scanned keySet) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(r.opts.Parallelism)
	for k, et := range scanned {
		if held, ok := r.prev[k]; ok && held == et {
			continue
		}
		g.Go(func() error {
			e, err := r.t.Get(gctx, k.pk, k.rk, nil)
			if errors.Is(err, tablekit.ErrNotFound) {
				return nil
			}
			if err != nil {
				return err
			}
			return r.store(gctx, e)
		})
	}
	return g.Wait()
}

// removeOrphans deletes the files of backups that have no manifest: runs
// that were interrupted, but not those of own, the ID of this run, whose
// other shares may be running. It runs before a new backup, one at a
// time. A store whose writes use temporary files (DirStore) also lists
// those a killed write left; the ones of such runs go too.
func removeOrphans(ctx context.Context, st Store, infos []Info, own string) error {
	orphans := map[string]string{} // name -> the backup ID it belongs to
	for _, dir := range []string{filesDir, shareDir} {
		names, err := st.List(ctx, dir)
		if err != nil {
			return err
		}
		for _, n := range names {
			orphans[n], _, _ = strings.Cut(strings.TrimPrefix(n, dir), "/")
		}
	}
	if ts, ok := st.(tempLister); ok {
		tmp, err := ts.TempFiles(ctx)
		if err != nil {
			return err
		}
		for _, n := range tmp {
			if id, ok := tempID(n); ok {
				orphans[n] = id
			}
		}
	}
	for n, id := range orphans {
		if _, ok := find(infos, id); ok || id == own {
			continue
		}
		if err := st.Delete(ctx, n); err != nil {
			return err
		}
	}
	return nil
}

// tempLister is a Store that can list the temporary files of writes
// killed before they finished (DirStore.TempFiles).
type tempLister interface {
	TempFiles(ctx context.Context) ([]string, error)
}

// tempID returns the backup a temporary file belonged to: the directory
// of a data or keys file (files/ID/[share-i-of-n/].tmp-...) or of a share
// manifest (shares/ID/.tmp-...), or the ID of a manifest
// (manifests/.tmp-ID.json-...). ok is false for any other name.
func tempID(name string) (id string, ok bool) {
	if rest, ok := strings.CutPrefix(name, manifestDir+tmpPrefix); ok {
		id, _, found := strings.Cut(rest, ".json-")
		return id, found
	}
	for _, dir := range []string{filesDir, shareDir} {
		if rest, ok := strings.CutPrefix(name, dir); ok {
			id, _, found := strings.Cut(rest, "/")
			return id, found && strings.HasPrefix(rest[strings.LastIndexByte(rest, '/')+1:], tmpPrefix)
		}
	}
	return "", false
}
