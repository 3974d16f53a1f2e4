package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/tablekit/tablekit"
)

// checkpointVersion is bumped when the file's meaning changes, so that an
// old file is refused instead of misread.
const checkpointVersion = 3

// Checkpoint is what a long run needs to continue after a crash or Ctrl-C:
// the parallel scan's token and how much was done. Job names the run
// (command, table, filter, segment, parallelism); a checkpoint of another
// job is refused, since its token would resume a different scan.
type Checkpoint struct {
	Version int       `json:"version"`
	Job     string    `json:"job"`
	Token   string    `json:"token"`
	Done    int64     `json:"done"`
	Bytes   int64     `json:"bytes,omitempty"`
	Updated time.Time `json:"updated"`
	// Extra holds what a command needs besides the token, e.g. the output
	// file's length at the checkpoint for an export.
	Extra map[string]string `json:"extra,omitempty"`
	// Complete is set when the job finished: running it again has nothing
	// left to do.
	Complete bool `json:"complete,omitempty"`
}

// checkpointFile stores one Checkpoint crash-safely: a save writes a
// temporary file in the same directory, syncs it, and renames it over the
// old one, so a crash at any moment leaves either the old or the new
// checkpoint, never a torn one.
type checkpointFile struct{ path string }

// loadCheckpoint reads path. A missing file is (nil, nil): a fresh start.
func loadCheckpoint(path, job string) (*Checkpoint, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	var cp Checkpoint
	if err := json.Unmarshal(b, &cp); err != nil {
		return nil, fmt.Errorf("checkpoint %s: unreadable: %w", path, err)
	}
	if cp.Version != checkpointVersion {
		return nil, fmt.Errorf("checkpoint %s: version %d, want %d", path, cp.Version, checkpointVersion)
	}
	if cp.Job != job {
		return nil, fmt.Errorf("checkpoint %s belongs to another run (%s); this run is %s: use another file or delete it", path, cp.Job, job)
	}
	return &cp, nil
}

func (c checkpointFile) save(cp Checkpoint) error {
	cp.Version = checkpointVersion
	cp.Updated = time.Now().UTC()
	b, err := json.MarshalIndent(cp, "", "  ")
	if err != nil {
		return err
	}
	if err := writeFileAtomic(c.path, append(b, '\n')); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return nil
}

// writeFileAtomic writes a temporary file in path's directory, syncs it
// and renames it over path: a crash at any moment leaves the old file or
// the new one, never a torn one.
func writeFileAtomic(path string, b []byte) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	// Sync the directory so that the rename itself survives a power loss.
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// saver writes a run's checkpoint now and then; without --checkpoint it
// does nothing.
type saver struct {
	file  *checkpointFile
	job   string
	every time.Duration
	last  time.Time
	Extra map[string]string
}

// checkpointEvery bounds the work lost in a crash (not on Ctrl-C, which
// saves at once).
var checkpointEvery = 5 * time.Second

// startCheckpoint loads the checkpoint of this job, if --checkpoint names
// one, and returns the saver and the position to resume from.
func startCheckpoint(path, job string) (*saver, *Checkpoint, error) {
	s := &saver{job: job, every: checkpointEvery, last: time.Now()}
	if path == "" {
		return s, &Checkpoint{}, nil
	}
	s.file = &checkpointFile{path}
	cp, err := loadCheckpoint(path, job)
	if err != nil {
		return nil, nil, err
	}
	if cp == nil {
		cp = &Checkpoint{}
	}
	return s, cp, nil
}

// due says whether the last save is old enough for another.
func (s *saver) due() bool { return s.file != nil && time.Since(s.last) >= s.every }

func (s *saver) save(token string, done int64, complete bool) error {
	if s.file == nil {
		return nil
	}
	s.last = time.Now()
	return s.file.save(Checkpoint{Job: s.job, Token: token, Done: done, Extra: s.Extra, Complete: complete})
}

// tellResume says, after a run that stopped early with err, where its
// position is, or that it cannot be resumed: a position in the middle of a
// page on a backend without key order whose page came back different
// (tablekit.ErrPositionLost).
func (s *saver) tellResume(e *env, err error) {
	switch {
	case s.file == nil:
	case errors.Is(err, tablekit.ErrPositionLost):
		fmt.Fprintf(e.stderr, "tablekit: the position saved in %s cannot be resumed exactly (the service returned its page differently): delete the file to start again\n", s.file.path)
	default:
		fmt.Fprintf(e.stderr, "tablekit: position saved in %s: run the same command again to resume\n", s.file.path)
	}
}
