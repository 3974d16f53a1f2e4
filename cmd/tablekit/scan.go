package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/tablekit/tablekit/internal/wire"
	"github.com/tablekit/tablekit/query"
	"github.com/tablekit/tablekit/table"
)

// keyEntity is the keys-only projection that count and delete read: with
// Select() the service sends nothing else.
type keyEntity struct {
	PartitionKey string
	RowKey       string
}

// scanFlags select the entities of a scan and how it is split: every
// command that reads a table (count, delete, export, copy) takes them all.
type scanFlags struct {
	filter, partition, prefix, segment, keyChars, checkpoint string
	parallel                                                 int
	checkFilter                                              bool
}

func (s *scanFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&s.filter, "filter", "", "OData filter, e.g. \"Timestamp lt datetime'2024-01-01T00:00:00Z'\" (And-ed with the rest)")
	fs.StringVar(&s.partition, "partition", "", "only this PartitionKey (segments then split its RowKeys)")
	fs.StringVar(&s.prefix, "prefix", "", "only PartitionKeys starting with this (RowKeys with --partition)")
	fs.BoolVar(&s.checkFilter, "check-filter", true, "before acting, read a few entities (one request) to check that --filter compares each property with a literal of the type it has in the table; false skips it (a property with several types)")
	fs.StringVar(&s.segment, "segment", "", "i/n: only share i of n (1 <= i <= n) of the key space, for n machines; the n shares cover the table exactly once")
	fs.StringVar(&s.keyChars, "key-chars", "alnum", "characters the keys are made of, to balance --segment (and guide --parallel's split): alnum, hex, HEX, digits, printable or the characters themselves (all machines must use the same)")
	fs.IntVar(&s.parallel, "parallel", query.DefaultParallelism, fmt.Sprintf("requests in flight, 1 to %d", query.MaxParallelism))
	fs.StringVar(&s.checkpoint, "checkpoint", "", "file to save the position in, periodically and on Ctrl-C; a later run with the same file and flags resumes")
}

// scanPlan is a validated scan: the filter of the query and, once
// discover has split the share where the keys are, its segments.
type scanPlan struct {
	filter   query.Filter
	segs     []query.Segment
	parallel int
	job      string // identifies the run in a checkpoint
	readers  int    // the scan's requests in flight; 0: parallel
	raw      string // --filter, when its literals are to be checked

	table string
	split query.Property // the key the segments split
	scope query.Filter   // the key filters (--partition, --prefix): what probes see
	share keyRange       // --segment's share of split's keys
	chars string
}

// segmentsPerWorker gives the parallel run more segments than requests in
// flight, so that a short segment does not leave a worker idle.
const segmentsPerWorker = 4

func (s *scanFlags) plan(command, tableName string) (scanPlan, error) {
	sh, err := parseShare(s.segment)
	if err != nil {
		return scanPlan{}, &usageError{err.Error()}
	}
	chars, err := keyChars(s.keyChars)
	if err != nil {
		return scanPlan{}, &usageError{err.Error()}
	}
	if s.parallel < 1 || s.parallel > query.MaxParallelism {
		return scanPlan{}, usagef("--parallel %d: want 1 to %d", s.parallel, query.MaxParallelism)
	}
	var fs []query.Filter
	split := query.PartitionKey
	if s.partition != "" {
		if bad := wire.CheckKey(s.partition); bad != nil {
			return scanPlan{}, usagef("--partition: %s", bad)
		}
		fs = append(fs, query.Partition(s.partition))
		split = query.RowKey
	}
	if s.prefix != "" {
		fs = append(fs, split.HasPrefix(s.prefix))
	}
	scope := query.And(fs...)
	if s.filter != "" {
		fs = append(fs, query.Raw(s.filter))
	}
	f := query.And(fs...)
	if err := f.Err(); err != nil {
		return scanPlan{}, usagef("--filter: %v", err)
	}
	whole, err := splitRanges(chars, sh, 1)
	if err != nil {
		return scanPlan{}, &usageError{err.Error()}
	}
	job := fmt.Sprintf("%s table=%s filter=%q partition=%q segment=%s key-chars=%q parallel=%d",
		command, tableName, s.filter, s.partition, sh, s.keyChars, s.parallel)
	if s.prefix != "" {
		job += fmt.Sprintf(" prefix=%q", s.prefix)
	}
	p := scanPlan{filter: f, parallel: s.parallel, job: job,
		table: tableName, split: split, scope: scope, share: whole[0], chars: chars}
	if s.checkFilter {
		p.raw = s.filter
	}
	return p, nil
}

// discover checks --filter's literals (see checkFilter) and splits the
// share where the keys are (see adaptiveBounds), or, on a resumed run, as
// the checkpoint says the run began: its token holds a position per
// segment, so the segments must be the same. The bounds go into the
// checkpoint with the first save. Every command calls it before it acts.
func (p *scanPlan) discover(ctx context.Context, svc *table.Service, cp *Checkpoint, sv *saver) error {
	if p.raw != "" {
		if err := checkFilter(ctx, svc, p.table, p.scope, p.raw); err != nil {
			return err
		}
	}
	var bounds []string
	if s, ok := cp.Extra[extraSplit]; ok {
		if err := json.Unmarshal([]byte(s), &bounds); err != nil {
			return fmt.Errorf("checkpoint: bad %s: %w", extraSplit, err)
		}
		if err := checkBounds(bounds, p.share); err != nil {
			return err
		}
	} else if cp.Token != "" {
		return fmt.Errorf("checkpoint: no segment bounds saved with the position; start again without the checkpoint")
	} else {
		probe, err := newProber(svc, p.table, p.split, p.scope)
		if err != nil {
			return err
		}
		if bounds, err = adaptiveBounds(ctx, probe, p.share, p.chars, p.parallel*segmentsPerWorker, p.parallel); err != nil {
			return fmt.Errorf("splitting the scan: %w", err)
		}
	}
	p.segs = segments(p.split, boundsRanges(p.share, bounds))
	if sv.Extra == nil {
		sv.Extra = map[string]string{}
	}
	sv.Extra[extraSplit] = encodeBounds(bounds)
	return nil
}

// openScan starts (or, with a token, resumes) the plan's parallel scan of
// q, over the segments discover found. Export (its CSV column pass too),
// count, delete and copy call it with their own T.
func openScan[T any](q query.Query[T], p scanPlan, resume string) (*query.ParallelCursor[T], error) {
	readers := p.parallel
	if p.readers > 0 {
		readers = p.readers
	}
	return q.Where(p.filter).PageSize(query.MaxPageSize).Parallel(p.segs, &query.ParallelOptions{
		Parallelism: readers,
		Resume:      resume,
	})
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

// maybe saves if the last save is old enough.
func (s *saver) maybe(token string, done int64) error {
	if s.file == nil || time.Since(s.last) < s.every {
		return nil
	}
	return s.save(token, done, false)
}

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
// (query.ErrPositionLost).
func (s *saver) tellResume(e *env, err error) {
	switch {
	case s.file == nil:
	case errors.Is(err, query.ErrPositionLost):
		fmt.Fprintf(e.stderr, "tablekit: the position saved in %s cannot be resumed exactly (the service returned its page differently): delete the file to start again\n", s.file.path)
	default:
		fmt.Fprintf(e.stderr, "tablekit: position saved in %s: run the same command again to resume\n", s.file.path)
	}
}
