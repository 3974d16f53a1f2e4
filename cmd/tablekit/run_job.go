package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/tablekit/tablekit/batch"
)

// job is one checkpointed run of export, import, copy, delete or count:
// the checkpoint it resumes, its progress on stderr, and how it ends (the
// position saved with a hint to resume, or the checkpoint marked
// complete). Each command states only what differs: its flags, its source
// and sink, and what its checkpoint holds besides the position.
type job struct {
	ctx   context.Context // the run's: saveDue stops the run once it ends
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
	// roundOps is the most entities import and copy write before their
	// position moves past them: roundOps, or TABLEKIT_TEST_ROUND_OPS.
	roundOps int
	// unsaved: the position moved past work that was not done (an entity
	// the output refused), so the run ends without saving it: the last
	// save is where a resumed run starts.
	unsaved bool
}

// checkpointFlags are every checkpointed command's --checkpoint and
// --restart.
type checkpointFlags struct {
	path    string
	restart bool
}

func (c *checkpointFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.path, "checkpoint", "", "file to save the position in, periodically and on Ctrl-C; a later run with the same file and arguments resumes")
	fs.BoolVar(&c.restart, "restart", false, "start the job over: --checkpoint's file is replaced, unread (export truncates its output)")
}

// newJob loads the checkpoint of the run id, as c says.
func newJob(ctx context.Context, e *env, verb string, c checkpointFlags, id jobID, every time.Duration) (*job, error) {
	stop, err := parseStopHook(e.getenv(stopEnv))
	if err != nil {
		return nil, err
	}
	ops, err := testRoundOps(e.getenv(roundOpsEnv))
	if err != nil {
		return nil, err
	}
	sv, cp, err := startCheckpoint(c.path, id, c.restart)
	if err != nil {
		return nil, err
	}
	if stop != nil {
		stop.ctx = ctx
	}
	sv.stop = stop
	if every > 0 {
		sv.every = every
	}
	j := &job{ctx: ctx, roundOps: ops, e: e, verb: verb, sv: sv, cp: cp, done: cp.Done, token: cp.Token}
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

// complete reports a job with nothing left to do. A checkpoint that says
// it is complete makes the run an errComplete (exit status 7) naming the
// checkpoint and what, the job's output: a job run again on purpose needs
// --restart, and one run again by mistake is not mistaken for new work.
// A scan that had read everything when its run stopped is finished by
// this run: the checkpoint is marked complete now, as its run would have.
func (j *job) complete(what string) (bool, error) {
	switch {
	case j.cp.Complete:
		return true, j.completed(what)
	case j.scanned():
		if err := j.save(true); err != nil {
			return true, err
		}
		fmt.Fprintf(j.e.stderr, "tablekit %s: the checkpoint's scan had read everything: this %s is complete now (%d entities, %s)\n", j.verb, j.verb, j.cp.Done, what)
		return true, nil
	}
	return false, nil
}

// completed is the error of a run whose checkpoint says the job is done.
func (j *job) completed(what string) error {
	return &completeError{fmt.Sprintf("the checkpoint %s says this %s is already complete (%d entities, %s); nothing was done: --restart runs it again from the start",
		j.sv.file.path, j.verb, j.cp.Done, what)}
}

// completeError is a run that found its job complete (exit status 7).
type completeError struct{ msg string }

func (e *completeError) Error() string { return e.msg }
func (e *completeError) Unwrap() error { return errComplete }

// start shows the job's progress from here on.
func (j *job) start(retries *retryCount) { j.m = newMeter(j.e, j.verb, -1, j.cp.Done, retries) }

// committed is batch.WriteOptions.Progress for a job's writes: a
// transaction committed is a step of the run, for the stop hook of tests;
// nil without one.
func (j *job) committed() func(batch.Progress) {
	if j.sv.stop == nil {
		return nil
	}
	return func(p batch.Progress) {
		if p.Chunks > 0 {
			j.sv.stop.progressed()
		}
	}
}

// saveDue saves the checkpoint if the last save is old enough. Every loop
// of a run calls it as its work moves on, so it also stops the run once
// its context ends (Ctrl-C), even while the entities it reads are
// buffered and no request would notice.
func (j *job) saveDue() error {
	if err := j.ctx.Err(); err != nil {
		return err
	}
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
		if j.unsaved {
			if j.sv.file == nil {
				return err
			}
			if _, serr := os.Stat(j.sv.file.path); serr != nil {
				fmt.Fprintf(j.e.stderr, "tablekit %s: no position was saved in %s: the same command starts over\n", j.verb, j.sv.file.path)
			} else {
				fmt.Fprintf(j.e.stderr, "tablekit %s: the position saved in %s is the last one before the failure: run the same command again to resume from there\n", j.verb, j.sv.file.path)
			}
			return err
		}
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
