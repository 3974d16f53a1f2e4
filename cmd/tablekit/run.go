package main

import "context"

// jobRun is one checkpointed command run: a source (a table's scan of
// its share, or an input file) and a sink (a file, a table, a
// comparison, deletes, a tally) given to run, which does what every such
// command does in the same order: the check of a complete job, local
// checks before any request, the progress display, the checkpoint's last
// save and the summary. A command states only its flags and the two ends.
type jobRun struct {
	job     *job
	retries *retryCount // the connections' retries, shown in the progress
	what    string      // the job's output, named when its checkpoint says it is complete
	src     jobSource
	dst     jobSink
}

// jobSource is where a run's work comes from.
type jobSource interface {
	// check gets ready to read without a request (a file opened at the
	// job's position), so that bad input is refused before any is sent.
	check(j *job) error
	// open gets ready with requests (a scan's segments found).
	open(ctx context.Context, j *job) error
	// close releases what check opened.
	close()
}

// jobSink is where it goes.
type jobSink interface {
	// check gets ready without a request, after the source's check: an
	// output that cannot be written is refused with nothing sent.
	check(j *job) error
	// open gets ready with requests, after the source opened: a target
	// table created, a scan opened.
	open(ctx context.Context, j *job) error
	// move does the run's work, moving the job's position past it.
	move(ctx context.Context, j *job) error
	// close ends the run once its outcome err is known, the checkpoint
	// saved: an output closed, what the run found printed. Its error is
	// the command's.
	close(j *job, err error) error
}

// Sinks may also say more at some steps of a run.
type (
	// scannedSink is told, before the checkpoint is marked complete, that
	// its scan had read everything when the last run stopped.
	scannedSink interface{ scanned(j *job) error }
	// completedSink says what the complete job found (a count, a
	// comparison); err is the run's outcome.
	completedSink interface{ completed(j *job, err error) error }
	// stoppedSink adds lines after the progress summary line, before the
	// checkpoint's last save.
	stoppedSink interface{ stopped(j *job) }
)

func (r *jobRun) run(ctx context.Context) error {
	j := r.job
	if s, ok := r.dst.(scannedSink); ok && j.scanned() {
		if err := s.scanned(j); err != nil {
			return err
		}
	}
	if done, err := j.complete(r.what); done {
		if c, ok := r.dst.(completedSink); ok {
			return c.completed(j, err)
		}
		return err
	}
	defer r.src.close()
	if err := r.src.check(j); err != nil {
		return err
	}
	if err := r.dst.check(j); err != nil {
		return err
	}
	err := r.src.open(ctx, j)
	if err == nil {
		err = r.dst.open(ctx, j)
	}
	if err == nil {
		j.start(r.retries)
		err = r.dst.move(ctx, j)
		j.stop()
		if s, ok := r.dst.(stoppedSink); ok {
			s.stopped(j)
		}
		err = j.end(err)
	}
	return r.dst.close(j, err)
}
