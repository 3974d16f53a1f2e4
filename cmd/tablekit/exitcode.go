package main

import (
	"context"
	"errors"
	"flag"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/backup"
)

// Exit statuses: 0 only when everything asked was done. The mapping of
// errors to them is exitStatus, the one place that names the library's
// outcome sentinels for it.
const (
	exitOK           = 0
	exitFailed       = 1 // a request failed, or some entities were rejected
	exitUsage        = 2 // bad flags or arguments, or restore into a table that holds entities without --mode; nothing was done
	exitNotFound     = 3 // the entity, table, stored access policy or backup does not exist
	exitPrecondition = 4 // --if-match: the entity's ETag is another one; --if-not-exists: it exists
	exitUnknown      = 5 // a write's reply was lost: it may or may not be stored
	exitDiffer       = 6 // verify: the two sides differ
	exitComplete     = 7 // --checkpoint: the job is complete already; nothing was done
	exitCorrupt      = 8 // a backup's file is damaged or missing (the message names it); nothing was written
	exitInterrupted  = 130
)

var (
	errUsage       = errors.New("usage")
	errInterrupted = errors.New("interrupted")
	// errOutcomeUnknown marks a write whose reply never came.
	errOutcomeUnknown = errors.New("the outcome is unknown")
	// errExists is put --if-not-exists finding its entity stored.
	errExists = errors.New("the entity exists")
	// errDiffer is verify's finding that the two sides are not equal.
	errDiffer = errors.New("differences found")
	// errComplete is a run whose checkpoint says its job is done.
	errComplete = errors.New("already complete")
)

// exitStatus is the exit status of a command's error, and whether the
// error is to be printed (help is not an error to report).
func exitStatus(ctx context.Context, err error) (code int, show bool) {
	switch {
	case err == nil:
		return exitOK, false
	case errors.Is(err, flag.ErrHelp):
		return exitOK, false
	case errors.Is(err, errUsage):
		return exitUsage, true
	// Restore checks the table before it writes: a refusal for want of a
	// --mode is a command line to change, as a bad flag is.
	case errors.Is(err, backup.ErrNotEmpty):
		return exitUsage, true
	case errors.Is(err, errInterrupted) || ctx.Err() != nil:
		return exitInterrupted, true
	case errors.Is(err, errOutcomeUnknown) || errors.Is(err, tablekit.ErrMaybeCommitted):
		return exitUnknown, true
	case errors.Is(err, tablekit.ErrNotFound) || errors.Is(err, tablekit.ErrTableNotFound) || errors.Is(err, errPolicyNotFound) ||
		errors.Is(err, backup.ErrNoBackup):
		return exitNotFound, true
	case errors.Is(err, backup.ErrCorrupt):
		return exitCorrupt, true
	case errors.Is(err, tablekit.ErrPreconditionFailed) || errors.Is(err, errExists):
		return exitPrecondition, true
	case errors.Is(err, errDiffer):
		return exitDiffer, true
	case errors.Is(err, errComplete):
		return exitComplete, true
	}
	return exitFailed, true
}

// writeOutcome marks the error of a single write whose outcome is unknown
// (tablekit.ErrMaybeCommitted: its reply was lost, or a retry met what may
// be its own earlier success) with what to do about it.
func writeOutcome(err error) error {
	if errors.Is(err, tablekit.ErrMaybeCommitted) {
		return &outcomeError{err}
	}
	return err
}

// outcomeError is a write that got no reply.
type outcomeError struct{ err error }

func (e *outcomeError) Error() string {
	return "no reply, so the outcome is unknown (read the entity back with tablekit get): " + e.err.Error()
}
func (e *outcomeError) Unwrap() []error { return []error{errOutcomeUnknown, e.err} }
