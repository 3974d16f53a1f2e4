package main

import (
	"context"
	"fmt"
	"time"

	"golang.org/x/sync/errgroup"
)

// job is one checkpointed run of export, import, copy, delete or count:
// the checkpoint it resumes, its progress on stderr, and how it ends (the
// position saved with a hint to resume, or the checkpoint marked
// complete). Each command states only what differs: its flags, its source
// and sink, and what its checkpoint holds besides the position.
type job struct {
	e     *env
	verb  string
	sv    *saver
	cp    *Checkpoint // as loaded: where this run starts
	m     *meter
	shown bool   // the summary line is written
	done  int64  // entities done, an earlier run's included
	token string // the position after them, unless position is set
	// position, when set, is the position after the entities done: a
	// scan's token, asked for only when the checkpoint is saved.
	position func() string
	// save writes the checkpoint at the job's position; commands whose
	// checkpoint holds more (an output's length, rejects) replace it.
	save func(complete bool) error
}

// newJob loads the checkpoint of the run id from path ("" for none).
func newJob(e *env, verb, path, id string, every time.Duration) (*job, error) {
	sv, cp, err := startCheckpoint(path, id)
	if err != nil {
		return nil, err
	}
	if every > 0 {
		sv.every = every
	}
	j := &job{e: e, verb: verb, sv: sv, cp: cp, done: cp.Done, token: cp.Token}
	j.save = func(complete bool) error { return j.sv.save(j.at(), j.done, complete) }
	return j, nil
}

// at is the job's position.
func (j *job) at() string {
	if j.position != nil {
		return j.position()
	}
	return j.token
}

// scanEnd is the position of a scan whose every segment finished. A
// cursor's token is then "", which in a checkpoint means the start: a
// resumed run would read the table again, counting it twice, and a copy
// stopped in its first round, its position still "", was taken for one
// that had finished.
const scanEnd = "end"

// scanPosition is a scan cursor's position for the checkpoint.
func scanPosition(token string) string {
	if token == "" {
		return scanEnd
	}
	return token
}

// scanned reports a scan that had read everything when the run stopped,
// before its final save.
func (j *job) scanned() bool { return !j.cp.Complete && j.cp.Token == scanEnd }

// complete reports a job with nothing left to do, and says so: its
// checkpoint says it is complete, or its scan had read everything (then
// the checkpoint is marked complete now, as its run would have).
func (j *job) complete() (bool, error) {
	switch {
	case j.cp.Complete:
	case j.scanned():
		if err := j.save(true); err != nil {
			return true, err
		}
	default:
		return false, nil
	}
	fmt.Fprintf(j.e.stderr, "tablekit %s: the checkpoint says this %s is complete (%d entities)\n", j.verb, j.verb, j.cp.Done)
	return true, nil
}

// start shows the job's progress from here on.
func (j *job) start(retries *retryCount) { j.m = newMeter(j.e, j.verb, -1, j.cp.Done, retries) }

// saveDue saves the checkpoint if the last save is old enough.
func (j *job) saveDue() error {
	if !j.sv.due() {
		return nil
	}
	return j.save(false)
}

// stop ends the progress display with the summary line.
func (j *job) stop() {
	if j.m != nil && !j.shown {
		j.m.finish()
		j.shown = true
	}
}

// end stops the progress display and saves the checkpoint: after err, the
// position reached (and says how to resume); else, complete.
func (j *job) end(err error) error {
	j.stop()
	if err != nil {
		if serr := j.save(false); serr != nil {
			fmt.Fprintf(j.e.stderr, "tablekit %s: %v\n", j.verb, serr)
		} else {
			j.sv.tellResume(j.e, err)
		}
		return err
	}
	return j.save(true)
}

// pipe runs a job's two sides at once: produce cuts its input into rounds
// and closes out; consume settles each round in order (writes it, moves
// the position past it). buffer rounds may wait between them. The first
// error stops both.
func pipe[R any](ctx context.Context, buffer int, produce func(context.Context, chan<- R) error, consume func(context.Context, R) error) error {
	rounds := make(chan R, buffer)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return produce(gctx, rounds) })
	g.Go(func() error {
		for r := range rounds {
			if err := consume(gctx, r); err != nil {
				return err
			}
		}
		return nil
	})
	return g.Wait()
}
