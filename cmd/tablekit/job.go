package main

import (
	"context"
	"fmt"
	"sync/atomic"
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

// complete reports a job the checkpoint says is complete, and says so.
func (j *job) complete() bool {
	if j.cp.Complete {
		fmt.Fprintf(j.e.stderr, "tablekit %s: the checkpoint says this %s is complete (%d entities)\n", j.verb, j.verb, j.cp.Done)
	}
	return j.cp.Complete
}

// scanned reports a scan whose every segment had finished when the run
// stopped, before its final save: nothing is left to read.
func (j *job) scanned() bool { return !j.cp.Complete && j.cp.Done > 0 && j.cp.Token == "" }

// start shows the job's progress from here on.
func (j *job) start(retries *atomic.Int64) { j.m = newMeter(j.e, j.verb, -1, j.cp.Done, retries) }

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
			j.sv.tellResume(j.e)
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
