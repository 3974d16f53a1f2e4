package backup

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"
)

// Info describes one finished backup: what List returns and what the
// backup's manifest holds. The manifest is the last file a backup writes;
// a backup without one does not exist.
type Info struct {
	Format int    `json:"format"` // manifestFormat
	ID     string `json:"id"`     // the start time, UTC, sortable; "-full" for a fold
	Table  string `json:"table"`  // the table backed up
	// Full is true for a backup that holds every entity; an incremental
	// one holds what changed since Base.
	Full bool   `json:"full"`
	Base string `json:"base,omitempty"`
	// FoldOf is set on a full backup that Keep made from the files of the
	// backup of that ID: it restores to the same entities.
	FoldOf string `json:"foldOf,omitempty"`
	// Started and Finished bound the span of time over which the backup
	// read the table.
	Started  time.Time `json:"started"`
	Finished time.Time `json:"finished"`
	// Changes is how an incremental backup found changed entities:
	// "timestamp" (a Timestamp filter) or "etag" (every key's ETag against
	// the previous backup's, for Cosmos DB).
	Changes string `json:"changes"`
	// Written is the entities stored in this backup's files, Deleted the
	// keys found deleted since Base, Entities the entities the table held
	// as of this backup (what a restore writes).
	Written  int64 `json:"written"`
	Deleted  int64 `json:"deleted"`
	Entities int64 `json:"entities"`
	// Bytes is the size of this backup's files in the store.
	Bytes int64  `json:"bytes"`
	Files []File `json:"files"`
	// Shares is how many machines took the backup (Options.Share); 0 for one.
	Shares int `json:"shares,omitempty"`
	// Pending is, in what Run returns to a share, the shares that have not
	// landed yet: the backup does not exist until one of them finds it 0.
	// The Info is then this share's part. Never stored.
	Pending int `json:"-"`
}

// File is one stored file of a backup with its SHA-256, checked before a
// restore or a fold uses it.
type File struct {
	Name   string `json:"name"` // in the store
	SHA256 string `json:"sha256"`
	Bytes  int64  `json:"bytes"`
	Lines  int64  `json:"lines"` // entities or keys
}

// IDLayout is the time layout of a backup's ID: its start time in UTC
// (Share.ID takes one).
const IDLayout = "20060102T150405.000Z"

const (
	manifestFormat = 1
	manifestDir    = "manifests/"
	filesDir       = "files/"
	foldSuffix     = "-full"
)

// Roles of a backup's files, by name.
const (
	keysFile    = "keys.jsonl.gz"    // the key set as of the backup, with ETags
	deletedFile = "deleted.jsonl.gz" // keys deleted since the base
	dataPrefix  = "data-"            // data-0000.jsonl.gz, ...: entities
)

func manifestName(id string) string { return manifestDir + id + ".json" }

// keys reads the backup's key set: its keys file, or one per share. Each
// file is checked against its checksum as it is read.
func (in *Info) keys(ctx context.Context, st Store) (keySet, error) {
	var fs []File
	for _, f := range in.Files {
		if strings.HasSuffix(f.Name, "/"+keysFile) {
			fs = append(fs, f)
		}
	}
	if len(fs) == 0 || (in.Shares > 0 && len(fs) != in.Shares) {
		return nil, &CorruptError{File: manifestName(in.ID), Reason: fmt.Sprintf("lists %d keys files for %d shares", len(fs), max(in.Shares, 1))}
	}
	s := keySet{}
	for _, f := range fs {
		part, err := readKeys(ctx, st, f)
		if err != nil {
			return nil, err
		}
		for k, et := range part {
			s[k] = et
		}
	}
	return s, nil
}

// dataFiles returns the backup's files of entities.
func (in *Info) dataFiles() []File {
	var out []File
	for _, f := range in.Files {
		if i := strings.LastIndexByte(f.Name, '/'); strings.HasPrefix(f.Name[i+1:], dataPrefix) {
			out = append(out, f)
		}
	}
	return out
}

// List returns the finished backups in st, oldest first. A backup still
// being written, or interrupted, has no manifest and is not listed.
func List(ctx context.Context, st Store) ([]Info, error) {
	names, err := st.List(ctx, manifestDir)
	if err != nil {
		return nil, err
	}
	out := make([]Info, 0, len(names))
	for _, name := range names {
		if !strings.HasSuffix(name, ".json") {
			continue
		}
		in, err := readManifest(ctx, st, name)
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted by a Keep since the listing
		}
		if err != nil {
			return nil, err
		}
		out = append(out, in)
	}
	slices.SortFunc(out, func(a, b Info) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}

func readManifest(ctx context.Context, st Store, name string) (Info, error) {
	rc, err := st.Get(ctx, name)
	if err != nil {
		return Info{}, err
	}
	defer rc.Close()
	var in Info
	dec := json.NewDecoder(rc)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return Info{}, &CorruptError{File: name, Reason: "not a manifest", Err: err}
	}
	if in.Format != manifestFormat || manifestName(in.ID) != name {
		return Info{}, &CorruptError{File: name, Reason: fmt.Sprintf("format %d, ID %q: not this version's manifest of this name", in.Format, in.ID)}
	}
	return in, nil
}

// commit writes the manifest: the backup exists from this Put on.
func commit(ctx context.Context, st Store, in *Info) error {
	b, err := json.MarshalIndent(in, "", "  ")
	if err != nil {
		return err
	}
	return st.Put(ctx, manifestName(in.ID), bytes.NewReader(append(b, '\n')))
}

// find returns the backup of id in infos.
func find(infos []Info, id string) (*Info, bool) {
	for i := range infos {
		if infos[i].ID == id {
			return &infos[i], true
		}
	}
	return nil, false
}

// chain returns the backups a restore of target reads, target first, back
// to a full one. A base that Keep folded is found as its full copy.
func chain(infos []Info, target *Info) ([]*Info, error) {
	out := []*Info{target}
	for cur := target; !cur.Full; {
		var next *Info
		for i := range infos {
			if infos[i].FoldOf == cur.Base && infos[i].Full {
				next = &infos[i]
			}
		}
		if next == nil {
			next, _ = find(infos, cur.Base)
		}
		if next == nil {
			return nil, &CorruptError{File: manifestName(cur.ID), Reason: "its base " + cur.Base + " is missing"}
		}
		out = append(out, next)
		cur = next
	}
	return out, nil
}
