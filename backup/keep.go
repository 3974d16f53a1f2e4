package backup

import (
	"context"
	"encoding/json"

	"github.com/tablekit/tablekit/internal/errmap"
)

// Kept reports a Keep.
type Kept struct {
	// Folded is the full backup Keep made from an incremental one's chain,
	// if it made one.
	Folded *Info
	// Removed lists the IDs of the backups removed.
	Removed []string
}

// Keep keeps the newest n backups in st and removes the older ones,
// folding the oldest kept into a full backup from the stored files first
// when it is incremental (see the package documentation).
func Keep(ctx context.Context, st Store, n int) (Kept, error) {
	if n < 1 {
		return Kept{}, errmap.Invalidf("keep", "n", "is %d: keep at least 1 backup", n)
	}
	infos, err := List(ctx, st)
	if err != nil {
		return Kept{}, err
	}
	// Backups that a fold replaced count as their fold.
	var live []*Info
	for i := range infos {
		if _, folded := foldOf(infos, infos[i].ID); !folded {
			live = append(live, &infos[i])
		}
	}
	if len(live) <= n {
		return Kept{}, nil
	}
	oldest := live[len(live)-n]
	var res Kept
	if !oldest.Full {
		f, err := fold(ctx, st, infos, oldest)
		if err != nil {
			return res, err
		}
		res.Folded = f
		oldest = f
	}
	// Remove every manifest older than the oldest kept (the folded
	// original included), then their files.
	var gone []string
	for _, in := range infos {
		if in.ID < oldest.ID {
			if err := st.Delete(ctx, manifestName(in.ID)); err != nil {
				return res, err
			}
			gone = append(gone, in.ID)
		}
	}
	for _, id := range gone {
		names, err := st.List(ctx, filesDir+id+"/")
		if err != nil {
			return res, err
		}
		for _, name := range names {
			if err := st.Delete(ctx, name); err != nil {
				return res, err
			}
		}
	}
	res.Removed = gone
	return res, nil
}

// foldOf returns the full backup that folds id, if any.
func foldOf(infos []Info, id string) (*Info, bool) {
	for i := range infos {
		if infos[i].FoldOf == id {
			return &infos[i], true
		}
	}
	return nil, false
}

// fold writes the full backup of target's entities from its chain's files.
func fold(ctx context.Context, st Store, infos []Info, target *Info) (*Info, error) {
	ch, err := chain(infos, target)
	if err != nil {
		return nil, err
	}
	state, err := target.keys(ctx, st)
	if err != nil {
		return nil, err
	}
	id := target.ID + foldSuffix
	dir := filesDir + id + "/"
	data := newFileWriter(st, dir, dataPrefix, DefaultFileBytes)
	defer data.stop()
	done := make(map[key]bool, len(state))
	for _, b := range ch {
		for _, f := range b.dataFiles() {
			err := readLines(ctx, st, f, func(line []byte) error {
				var k struct{ PartitionKey, RowKey string }
				if err := json.Unmarshal(line, &k); err != nil {
					return &CorruptError{File: f.Name, Reason: "a line is not an entity", Err: err}
				}
				kk := key{k.PartitionKey, k.RowKey}
				if _, ok := state[kk]; !ok || done[kk] {
					return nil
				}
				done[kk] = true
				return data.add(ctx, append(line[:len(line):len(line)], '\n'))
			})
			if err != nil {
				return nil, err
			}
		}
	}
	if len(done) != len(state) {
		return nil, &CorruptError{File: manifestName(target.ID), Reason: "keys of its key set are in no data file of its chain"}
	}
	if err := data.close(ctx); err != nil {
		return nil, err
	}
	kw := newFileWriter(st, dir, keysFile, 0)
	if err := writeKeys(ctx, kw, state); err != nil {
		return nil, err
	}
	f := *target
	f.ID, f.Full, f.Base, f.FoldOf, f.Shares = id, true, "", target.ID, 0
	f.Written, f.Deleted, f.Entities = int64(len(state)), 0, int64(len(state))
	f.Files = append(data.files, kw.files...)
	f.Bytes = 0
	for _, x := range f.Files {
		f.Bytes += x.Bytes
	}
	if err := commit(ctx, st, &f); err != nil {
		return nil, err
	}
	return &f, nil
}
