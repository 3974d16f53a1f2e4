package backup

import "errors"

// Outcome sentinels of package backup; bad input is a
// *tablekit.ValidationError (tablekit.ErrInvalid) before any request, and
// the table's and the store's failures come back in tablekit's model.
var (
	// ErrNoBackup: the store holds no backup of that ID, or none finished
	// by the time asked for, or none at all.
	ErrNoBackup = errors.New("backup: no such backup")
	// ErrCorrupt: a stored file does not match its checksum, cannot be
	// read, or is missing; the *CorruptError names it. Nothing was written
	// to the table.
	ErrCorrupt = errors.New("backup: damaged backup")
	// ErrNotEmpty: Restore found entities in the table and no
	// RestoreOptions.Mode said what to do with them.
	ErrNotEmpty = errors.New("backup: the table holds entities")
)

// CorruptError names the stored file that is damaged and how.
type CorruptError struct {
	File   string // the file's name in the store
	Reason string // e.g. "SHA-256 mismatch"
	Err    error  // an underlying error, if any
}

// Error names the file and what is wrong with it.
func (e *CorruptError) Error() string {
	s := ErrCorrupt.Error() + ": " + e.File + ": " + e.Reason
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Is makes errors.Is(err, ErrCorrupt) true.
func (e *CorruptError) Is(target error) bool { return target == ErrCorrupt }

// Unwrap returns the underlying error, if any.
func (e *CorruptError) Unwrap() error { return e.Err }
