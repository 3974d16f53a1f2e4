package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"strconv"
	"time"

	"github.com/tablekit/tablekit/internal/keyspace"
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
	filter, partition, prefix, segment, plan string
	parallel                                 int
	checkFilter                              bool
	ckpt                                     checkpointFlags
	rate                                     rateValue
}

func (s *scanFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&s.filter, "filter", "", "OData filter, e.g. \"Timestamp lt datetime'2024-01-01T00:00:00Z'\" (And-ed with the rest)")
	fs.StringVar(&s.partition, "partition", "", "only this PartitionKey (segments then split its RowKeys)")
	fs.StringVar(&s.prefix, "prefix", "", "only PartitionKeys starting with this (RowKeys with --partition)")
	s.registerCheck(fs)
	fs.StringVar(&s.segment, "segment", "", "i/n: only share i of n (1 <= i <= n) of --plan's, for n machines; env:VAR/n takes i-1 from $VAR (a 0-based index such as Kubernetes' JOB_COMPLETION_INDEX)")
	fs.StringVar(&s.plan, "plan", "", "the shares of --segment, from tablekit plan: every machine gets the same file, and the n shares cover the table exactly once")
	fs.IntVar(&s.parallel, "parallel", query.DefaultParallelism, fmt.Sprintf("requests in flight, 1 to %d", query.MaxParallelism))
	registerRate(fs, &s.rate)
	s.ckpt.register(fs)
}

// registerCheck registers --check-filter, also for commands that take no
// other scan flag (query).
func (s *scanFlags) registerCheck(fs *flag.FlagSet) {
	fs.BoolVar(&s.checkFilter, "check-filter", true, "before acting, read a sample of the table (one request) and refuse a --filter that names a property no entity read has, or compares one with a literal of another type than it has there; false skips it (a rare property, or one with several types)")
}

// scanPlan is a validated scan: the filter of the query and, once
// discover has split the share where the keys are, its segments.
type scanPlan struct {
	filter   query.Filter // the keys and --filter
	segs     []query.Segment
	bounds   []string // where discover split the share, on split
	parallel int
	ordered  bool   // export --ordered: the segments merged in key order
	job      jobID  // identifies the run in a checkpoint
	readers  int    // the scan's requests in flight; 0: parallel
	raw      string // --filter, when its literals are to be checked

	table string
	split query.Property // the key the segments split
	keys  query.Filter   // the key filters (--partition, --prefix, the share): what the split reads
	share keyspace.Range // the share's keys, on split
}

// segmentsPerWorker gives the parallel run more segments than requests in
// flight, so that a short segment does not leave a worker idle.
const segmentsPerWorker = 4

// splitRequests bounds the keys-only queries that split a share for
// --parallel: where the keys are matters less than between machines, and
// every run of a command makes them.
const splitRequests = 12

// scope is the key filter of --partition and --prefix, on the property
// the segments split.
func scope(partition, prefix string) (query.Filter, error) {
	var fs []query.Filter
	if partition != "" {
		if bad := wire.CheckKey(partition); bad != nil {
			return query.Filter{}, usagef("--partition: %s", bad)
		}
		fs = append(fs, query.Partition(partition))
	}
	if prefix != "" {
		fs = append(fs, splitOf(partition).HasPrefix(prefix))
	}
	return query.And(fs...), nil
}

func (s *scanFlags) makePlan(command, tableName string, getenv func(string) string) (scanPlan, error) {
	sh, err := parseShare(s.segment, getenv)
	if err != nil {
		return scanPlan{}, &usageError{err.Error()}
	}
	if s.parallel < 1 || s.parallel > query.MaxParallelism {
		return scanPlan{}, usagef("--parallel %d: want 1 to %d", s.parallel, query.MaxParallelism)
	}
	switch {
	case s.plan != "" && s.segment == "":
		return scanPlan{}, usagef("--plan needs --segment i/n (or env:VAR/n): the share of the plan to read")
	case sh.N > 1 && s.plan == "":
		return scanPlan{}, usagef("--segment %s needs --plan FILE: make it once with tablekit plan %s --shares %d -o FILE and give it to every machine (machines that each cut a table being written could cut it in different places)", s.segment, tableName, sh.N)
	}
	sc, err := scope(s.partition, s.prefix)
	if err != nil {
		return scanPlan{}, err
	}
	split := splitOf(s.partition)
	p := scanPlan{parallel: s.parallel, table: tableName, split: split, share: scopeRange(s.prefix)}
	job := jobID{{"command", command}, {"table", tableName}, {"filter", s.filter}, {"partition", s.partition},
		{"prefix", s.prefix}, {"segment", sh.String()}, {"parallel", strconv.Itoa(s.parallel)}}
	keys := []query.Filter{sc}
	if s.plan != "" {
		pl, err := readPlan(s.plan)
		if err == nil {
			err = pl.check(s.plan, tableName, s.partition, s.prefix, sh)
		}
		if err != nil {
			return scanPlan{}, &usageError{err.Error()}
		}
		whole := p.share
		p.share = pl.of(sh)
		if p.share.Lo != whole.Lo {
			keys = append(keys, split.Ge(query.String(p.share.Lo)))
		}
		if p.share.HasHi && (!whole.HasHi || p.share.Hi != whole.Hi) {
			keys = append(keys, split.Lt(query.String(p.share.Hi)))
		}
		job = append(job, jobField{"plan", pl.id()})
	}
	p.keys = query.And(keys...)
	p.filter = p.keys
	if s.filter != "" {
		p.filter = query.And(p.keys, query.Raw(s.filter))
	}
	if err := p.filter.Err(); err != nil {
		return scanPlan{}, usagef("--filter: %v", err)
	}
	p.job = job
	if s.checkFilter {
		p.raw = s.filter
	}
	return p, nil
}

// start plans a scan command's run and loads its checkpoint; extra names
// what else the run depends on (export's output and format, copy's
// target), so that the checkpoint of another run is refused.
func (s *scanFlags) start(ctx context.Context, e *env, verb, name string, every time.Duration, extra ...jobField) (*job, scanPlan, error) {
	plan, err := s.makePlan(verb, name, e.getenv)
	if err != nil {
		return nil, plan, err
	}
	plan.job = append(plan.job, extra...)
	j, err := newJob(ctx, e, verb, s.ckpt, plan.job, every)
	return j, plan, err
}

// stream hands the scan's entities to each, one at a time, counting them
// done; the job's position is the scan's, saved now and then.
func stream[T any](ctx context.Context, j *job, c *query.ParallelCursor[T], each func(T) error) error {
	j.position = func() string { return scanPosition(c.Token()) }
	for ent, err := range c.All(ctx) {
		if err != nil {
			return err
		}
		if err := each(ent); err != nil {
			j.unsaved = true // the position is past ent
			return err
		}
		j.done++
		j.m.add(1)
		if err := j.saveDue(); err != nil {
			return err
		}
	}
	return nil
}

// discover checks --filter's literals (see checkFilter) and splits the
// share where its keys are (query.Split, a few keys-only queries), or, on
// a resumed run, as the checkpoint says the run began: its token holds a
// position per segment, so the segments must be the same even if the
// table changed. The bounds go into the checkpoint with the first save.
// Every scan command calls it before it acts.
func (p *scanPlan) discover(ctx context.Context, svc *table.Service, cp *Checkpoint, sv *saver) error {
	if p.raw != "" {
		if err := checkFilter(ctx, svc, p.table, p.keys, p.raw); err != nil {
			return err
		}
	}
	var bounds []string
	if s, ok := cp.Extra[extraSplit]; ok {
		if err := json.Unmarshal([]byte(s), &bounds); err != nil {
			return fmt.Errorf("checkpoint: bad %s: %w", extraSplit, err)
		}
		if err := keyspace.CheckBounds(bounds, p.share); err != nil {
			return fmt.Errorf("checkpoint: the saved segment bounds do not fit this share (%v); start again without the checkpoint", err)
		}
	} else if cp.Token != "" {
		return fmt.Errorf("checkpoint: no segment bounds saved with the position; start again without the checkpoint")
	} else if parts := p.segments(); parts > 1 {
		t, err := table.New[keyEntity](svc, p.table)
		if err != nil {
			return err
		}
		sp, err := query.New(t).Where(p.keys).Split(ctx, parts, &query.SplitOptions{Requests: splitRequests})
		if err != nil {
			return fmt.Errorf("splitting the scan: %w", err)
		}
		bounds = sp.Bounds
	}
	p.bounds = bounds
	p.segs = query.Split{Property: p.split, Bounds: bounds}.Segments()
	if sv.Extra == nil {
		sv.Extra = map[string]string{}
	}
	b, _ := json.Marshal(bounds)
	sv.Extra[extraSplit] = string(b)
	return nil
}

// extraSplit keeps the segment bounds in the checkpoint: a resumed run
// must scan the same segments, since the token holds a position per
// segment.
const extraSplit = "split-bounds"

// segments is how many segments the scan wants: none to split for one
// request in flight; for a merge in key order, which holds a page of every
// segment, one per request.
func (p *scanPlan) segments() int {
	switch {
	case p.parallel == 1:
		return 1
	case p.ordered:
		return p.parallel
	}
	return p.parallel * segmentsPerWorker
}

// openScan starts (or, with a token, resumes) the plan's parallel scan of
// q, over the segments discover found. Export (its CSV column pass too),
// count, delete and copy call it with their own T.
func openScan[T any](q query.Query[T], p scanPlan, resume string) (*query.ParallelCursor[T], error) {
	readers := p.parallel
	if p.readers > 0 {
		readers = p.readers
	}
	return q.Where(p.filter).PageSize(query.MaxPageSize).ResumeParallel(resume, p.segs, &query.ParallelOptions{
		Parallelism: readers,
		Ordered:     p.ordered,
	})
}

// scanSource is a table's scan of the plan's share (--plan and --segment,
// --partition, --prefix, --filter); open splits it into segments where its
// keys are, and sinks open a cursor of their entity type with scan.
type scanSource struct {
	svc  *table.Service
	plan *scanPlan
}

func (*scanSource) check(*job) error { return nil }
func (*scanSource) close()           {}

func (s *scanSource) open(ctx context.Context, j *job) error {
	return s.plan.discover(ctx, s.svc, j.cp, j.sv)
}

// scan opens the source's parallel scan of q at the job's position.
func scan[T any](s *scanSource, q query.Query[T], j *job) (*query.ParallelCursor[T], error) {
	return openScan(q, *s.plan, j.token)
}
