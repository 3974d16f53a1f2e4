package main

import (
	"context"
	"errors"
	"flag"
	"time"

	"github.com/tablekit/tablekit/internal/wire"
)

// jobCommand is a checkpointed command told to the runner: which accounts
// and flag groups it takes, its own flags and checks, and the constructor
// of its run (source and sink). The runner parses, checks the table names,
// runs the command's checks and opens the accounts, in that order for
// every command, so that bad input is refused before an account is opened
// and a command's file states only what differs.
type jobCommand struct {
	name   string
	args   int  // positional arguments
	tables int  // how many of them, first, are table names
	scan   bool // the scan flags: scope, share, --parallel, --rate, --checkpoint
	every  bool // --checkpoint-every
	target bool // --to-*: a second account, the source's when none is given
	// writeCap: --rate caps the writes to the target account; when that is
	// another account, the source's reads only back off once throttled.
	// They are paced by the writes anyway (the copy reads at most a round
	// ahead), and a cap on them too would leave the writer waiting for
	// reads that the same rate holds back.
	writeCap bool
	// flags registers the command's own flags.
	flags func(fs *flag.FlagSet, in *jobInput)
	// check refuses bad input once parsed, before any account is opened.
	check func(in *jobInput) error
	// build makes the run once the accounts are open.
	build func(ctx context.Context, in *jobInput) (*jobRun, error)
	// act, instead of build, is the work of a command whose run is not a
	// source and a sink (backup, restore, backups), once connected.
	act func(ctx context.Context, in *jobInput) error
	// offline opens no account: the source flags only name one (backups
	// signs requests to a container with its connection string's key).
	offline bool
}

// jobInput is a command's parsed command line and, once connected, its
// accounts.
type jobInput struct {
	e     *env
	verb  string
	pos   []string
	sf    scanFlags // with scan; its ckpt and rate also serve a command that registers only those (import)
	every time.Duration
	from  *endpointFlags // the source account's flags
	to    *endpointFlags // with target
	// noTarget, set by check, leaves the target account unopened: the
	// run's other side is no table (verify against a file or a backup).
	noTarget bool
	retries  *retryCount // every connection's, shown in the progress
	src, dst *connection // dst is src when the target is the source account
	// sameAccount: the target account was asked for and none was given.
	sameAccount bool
}

// runJob is the run function of a command described by mk, made anew for
// each run so that its flags are its own.
func runJob(mk func() *jobCommand) func(context.Context, *env, []string) error {
	return func(ctx context.Context, e *env, args []string) error { return mk().run(ctx, e, args) }
}

func (c *jobCommand) run(ctx context.Context, e *env, args []string) error {
	in := &jobInput{e: e, verb: c.name, retries: new(retryCount)}
	fs := newFlags(e, commands[c.name])
	in.from = sourceFlags()
	in.from.register(fs)
	if c.target {
		in.to = targetFlags()
		in.to.register(fs)
	}
	if c.scan {
		in.sf.register(fs)
	}
	if c.every {
		everyFlag(fs, &in.every)
	}
	if c.flags != nil {
		c.flags(fs, in)
	}
	pos, err := parse(fs, args, c.args)
	if err != nil {
		return err
	}
	for _, n := range pos[:c.tables] {
		if bad := wire.CheckTableName(n); bad != nil {
			return badTableName(n, bad)
		}
	}
	in.pos = pos
	if c.check != nil {
		if err := c.check(in); err != nil {
			return err
		}
	}
	if !c.offline {
		if err := in.connect(rateOf(fs), c.target, c.writeCap); err != nil {
			return err
		}
	}
	if c.act != nil {
		return c.act(ctx, in)
	}
	r, err := c.build(ctx, in)
	if err != nil {
		return err
	}
	return r.run(ctx)
}

// connect opens the source account and, when asked for and not left out
// by noTarget, the target; both share --rate and the retry count, but for
// writeCap the source of another account has no cap (only backing off).
func (in *jobInput) connect(rate *rateValue, target, writeCap bool) error {
	var err error
	in.from.rate = rate
	if writeCap && target && !in.noTarget && rate != nil && *rate > 0 && in.to.given(in.e) {
		in.from.rate = new(rateValue) // 0: no cap, backing off once throttled
	}
	if in.src, err = in.from.open(in.e, in.retries); err != nil {
		return err
	}
	in.dst = in.src
	if !target || in.noTarget {
		return nil
	}
	in.to.rate = rate
	dst, err := in.to.open(in.e, in.retries)
	switch {
	case errors.Is(err, errNoTarget):
		in.sameAccount = true
	case err != nil:
		return err
	default:
		in.dst = dst
	}
	return nil
}

// startScan plans the scan of the first table and loads the checkpoint;
// extra names what else the run depends on (see scanFlags.start).
func (in *jobInput) startScan(ctx context.Context, extra ...jobField) (*job, scanPlan, error) {
	return in.sf.start(ctx, in.e, in.verb, in.pos[0], in.every, extra...)
}

// everyFlag is how often export, import and copy save their checkpoint.
func everyFlag(fs *flag.FlagSet, d *time.Duration) {
	fs.DurationVar(d, "checkpoint-every", checkpointEvery, "how often to save --checkpoint: the most work a crash can lose")
}
