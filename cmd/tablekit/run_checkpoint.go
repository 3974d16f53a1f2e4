package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tablekit/tablekit"
)

// checkpointVersion is bumped when the file's meaning changes, so that an
// old file is refused instead of misread.
const checkpointVersion = 4

// Checkpoint is what a long run needs to continue after a crash or Ctrl-C:
// the parallel scan's token and how much was done. Job names the run
// (command, table, filter, segment, parallelism, output, ...); a
// checkpoint of another job is refused, since its token would resume a
// different scan or write into another file.
type Checkpoint struct {
	Version int               `json:"version"`
	Job     map[string]string `json:"job"`
	Token   string            `json:"token"`
	Done    int64             `json:"done"`
	Bytes   int64             `json:"bytes,omitempty"`
	Updated time.Time         `json:"updated"`
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

// jobField is one thing a run depends on, named as a refusal says it:
// "the checkpoint is of table orders, not orders2".
type jobField struct{ name, value string }

// jobID is what a checkpoint must agree on to be resumed, in the order a
// refusal names its differences.
type jobID []jobField

func (id jobID) fields() map[string]string {
	m := make(map[string]string, len(id))
	for _, f := range id {
		m[f.name] = f.value
	}
	return m
}

// differences says, field by field, how the saved job differs from id.
func (id jobID) differences(saved map[string]string) []string {
	var diffs []string
	seen := map[string]bool{}
	for _, f := range id {
		seen[f.name] = true
		if old, ok := saved[f.name]; !ok || old != f.value {
			diffs = append(diffs, fmt.Sprintf("of %s %s, not %s", f.name, shown(old, ok), shown(f.value, true)))
		}
	}
	var extra []string
	for name := range saved {
		if !seen[name] {
			extra = append(extra, name)
		}
	}
	slices.Sort(extra)
	for _, name := range extra {
		diffs = append(diffs, fmt.Sprintf("of %s %s, not none", name, shown(saved[name], true)))
	}
	return diffs
}

// shown is a job field's value as a refusal writes it.
func shown(v string, ok bool) string {
	switch {
	case !ok || v == "":
		return "none"
	case strings.ContainsAny(v, " \t\"'"):
		return strconv.Quote(v)
	}
	return v
}

// filePath is a file argument as a job names it: absolute, so that the
// same name in another directory is another job; "-" stays as it is.
func filePath(path string) string {
	if abs, err := filepath.Abs(path); err == nil && path != "-" {
		return abs
	}
	return path
}

// loadCheckpoint reads path. A missing file is (nil, nil): a fresh start.
// A checkpoint of another job or version is a usage error: nothing is
// sent, and it says what differs.
func loadCheckpoint(path string, job jobID) (*Checkpoint, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	var cp Checkpoint
	if err := json.Unmarshal(b, &cp); err != nil {
		return nil, usagef("checkpoint %s: unreadable (%v): give another file, or --restart to replace it", path, err)
	}
	if cp.Version != checkpointVersion {
		return nil, usagef("checkpoint %s: version %d, this tablekit reads version %d: give another file, or --restart to replace it", path, cp.Version, checkpointVersion)
	}
	if diffs := job.differences(cp.Job); len(diffs) > 0 {
		return nil, usagef("checkpoint %s is of another job: it is %s; resume it with its own arguments, give another file, or --restart to replace it", path, strings.Join(diffs, "; "))
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
	job   jobID
	stop  *stopHook // nil but in tests
	every time.Duration
	last  time.Time
	Extra map[string]string
}

// checkpointEvery bounds the work lost in a crash (not on Ctrl-C, which
// saves at once).
var checkpointEvery = 5 * time.Second

// startCheckpoint loads the checkpoint of this job, if --checkpoint names
// one, and returns the saver and the position to resume from. restart
// removes the file unread instead: the run starts over, and its first
// save replaces the checkpoint. Removing it at once (rather than at that
// save) keeps a restart that stops early from leaving an old complete
// checkpoint beside an output it truncated.
func startCheckpoint(path string, job jobID, restart bool) (*saver, *Checkpoint, error) {
	s := &saver{job: job, every: checkpointEvery, last: time.Now()}
	if path == "" {
		if restart {
			return nil, nil, usagef("--restart needs --checkpoint FILE: without one every run starts over")
		}
		return s, &Checkpoint{}, nil
	}
	s.file = &checkpointFile{path}
	if restart {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, nil, fmt.Errorf("checkpoint: %w", err)
		}
	}
	cp, err := loadCheckpoint(path, job)
	if err != nil {
		return nil, nil, err
	}
	if cp == nil {
		cp = &Checkpoint{}
	}
	return s, cp, nil
}

// due says whether the last save is old enough for another. Every loop
// of a run asks it as its work moves on, so it is also where a test's
// stop hook fires.
func (s *saver) due() bool {
	s.stop.progressed()
	return s.file != nil && time.Since(s.last) >= s.every
}

func (s *saver) save(token string, done int64, complete bool) error {
	if s.file == nil {
		return nil
	}
	s.last = time.Now()
	err := s.file.save(Checkpoint{Job: s.job.fields(), Token: token, Done: done, Extra: s.Extra, Complete: complete})
	if err == nil {
		s.stop.saved()
	}
	return err
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
