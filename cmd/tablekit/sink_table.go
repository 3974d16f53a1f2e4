package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/batch"
	"github.com/tablekit/tablekit/query"
	"github.com/tablekit/tablekit/table"
)

// item is one entity to write and where it came from: an input line for
// import (its text kept for --rejects), a position in the scan for copy.
// Import parses lines into ent; copy carries the source's JSON in raw.
type item struct {
	line int64
	ent  table.Entity
	raw  table.RawEntity
	text []byte // the input line (a CSV row: all its lines), for --rejects
	// head and tail are, instead of text, an exported line's text around
	// the members of raw.Properties (splitExported), which hold the rest.
	head, tail []byte
	size       int // estimated bytes, to bound a round's memory
	// inDoubt: a transaction holding this item may have committed (its
	// reply was lost), so an add finding the entity may find its own.
	inDoubt bool
}

// input is the item's input line, for --rejects.
func (it *item) input() string {
	if it.head == nil {
		return string(it.text)
	}
	p := it.raw.Properties
	return string(it.head) + string(p[1:len(p)-1]) + string(it.tail)
}

// reject is an entity or line that was not written, and why.
type reject struct {
	Line   int64  `json:"line"`
	Reason string `json:"reason"`
	Input  string `json:"input,omitempty"`
}

// round is a slice of the input written before the checkpoint moves past
// it. Rounds are written one after the other, so that the checkpoint only
// ever names a point before which everything committed (or was rejected),
// and a key given twice keeps its last value.
type round struct {
	items   []item
	rejects []reject // found while reading
	next    string   // the position after the round, for the checkpoint
	bytes   int
	slabs   [][]byte // the slabs holding its items' text, given back with items once written
}

// roundWriter writes rounds with batch.Write, which packs each round's
// partitions into full transactions: the items' ent through t, or their
// raw through rt when rt is set.
type roundWriter struct {
	t    *dynTable
	rt   *table.Table[table.RawEntity]
	kind batch.OpKind
	mode table.Mode
	opts *batch.WriteOptions
	// resumed: an add that finds its entity already there, with the same
	// properties, counts as done, since it may be the killed run's write
	// (item.inDoubt says the same after a lost reply).
	resumed bool
	// keepExisting (--mode add-missing): an add that finds its entity
	// already there leaves it as it is and counts it in existing, instead
	// of rejecting it.
	keepExisting bool
	existing     int64
	check        []byte // checkRaw's buffer
}

// maxStalls bounds the resubmissions of a round that settle nothing: no
// operation committed, refused or found already there.
const maxStalls = 10

// write writes the round's items. It returns how many are stored, the
// rejected ones, and an error when the round could not be completed (the
// context ended, or a transaction was refused for a reason no single
// entity explains, such as a missing table): then the checkpoint must not
// move past it.
func (w *roundWriter) write(ctx context.Context, items []item) (stored int, rejects []reject, err error) {
	if w.rt != nil {
		return writeItems(ctx, w, w.rt, items, func(it *item) table.RawEntity { return it.raw }, w.checkRaw)
	}
	return writeItems(ctx, w, w.t, items, func(it *item) table.Entity { return it.ent }, nil)
}

// checkRaw checks the raw entity of it by every rule a write has
// (Table.AppendJSON), into a reused buffer. A raw line is checked so only
// when a round holds an entity batch.Write refused before sending it: the
// write checks every entity as it encodes it, so the lines of a valid
// file are not scanned a third time.
func (w *roundWriter) checkRaw(it *item) error {
	var err error
	w.check, err = w.rt.AppendJSON(w.check[:0], it.raw)
	return err
}

// writeItems is write for either kind of entity, ent picking an item's.
// A transaction refused because of one operation wrote nothing; it is sent
// again without that operation, which is rejected, and for adds without
// every other entity of the transaction found already there (one read).
// check, when set, is how items not checked when read are checked once
// Write refuses one of them before sending it (the rest of its partition
// is then not sent): every item left is checked, the invalid ones
// rejected, so that a round with many bad lines takes one more Write, not
// one per line.
func writeItems[E any](ctx context.Context, w *roundWriter, t *table.Table[E], items []item, ent func(*item) E, check func(*item) error) (stored int, rejects []reject, err error) {
	pending := items
	for stalls := 0; len(pending) > 0; {
		ops := make([]batch.Op[E], len(pending))
		for i := range pending {
			ops[i] = batch.Op[E]{Kind: w.kind, Entity: ent(&pending[i]), Mode: w.mode}
		}
		sum, werr := batch.Write(ctx, t, ops, w.opts)
		if werr == nil {
			return stored + len(ops), rejects, nil
		}
		if ctx.Err() != nil {
			return stored + sum.Ops, rejects, werr
		}
		why := map[int]error{}
		refused := map[int]error{} // the operation the service or the checks refused, and why
		without := map[int]bool{}  // rolled back because of another operation: send again
		settled := map[int]bool{}  // by a look at what is stored
		before := stored + len(rejects) + int(w.existing)
		recheck := false
		for _, ch := range sum.Incomplete {
			for _, i := range ch.Ops {
				why[i] = ch.Err
			}
			var se *tablekit.ServiceError
			var ie *tablekit.ValidationError
			switch {
			case w.kind == batch.Add && w.rt == nil && (errors.Is(ch.Err, tablekit.ErrMaybeCommitted) ||
				errors.As(ch.Err, &se) && se.Index >= 0 && errors.Is(ch.Err, tablekit.ErrAlreadyExists)):
				n, rjs, again, err := w.settleAdds(ctx, pending, ch)
				if err != nil {
					return stored, rejects, err
				}
				stored += n
				rejects = append(rejects, rjs...)
				for _, i := range ch.Ops {
					settled[i], without[i] = !again[i], again[i]
				}
			case errors.As(ch.Err, &se) && se.Index >= 0 && entityRefusal(ch.Err):
				refused[se.Index] = errors.New(strings.TrimSpace(fmt.Sprintf("%d %s", se.StatusCode, se.Code)) + ": " + se.Message)
				for _, i := range ch.Ops {
					without[i] = i != se.Index
				}
			case errors.As(ch.Err, &ie) && len(ch.Ops) == 1:
				cause := ch.Err
				if check != nil {
					// The reason as the check names it, which does not
					// number the operation; Write's own when only the
					// transaction's limits refuse it.
					recheck = true
					if cerr := check(&pending[ch.Ops[0]]); cerr != nil {
						cause = cerr
					}
				}
				refused[ch.Ops[0]] = cause
			}
		}
		var again []item
		var stallCause error
		for i, it := range pending {
			cause := why[i]
			switch {
			case settled[i]:
			case sum.State(i) == batch.Committed:
				stored++
			case cause == nil || sum.State(i) == batch.NotSent || without[i] || sum.State(i) == batch.Unknown:
				// Unknown: an upsert sent again ends the same either way.
				it.inDoubt = it.inDoubt || sum.State(i) == batch.Unknown
				if stallCause == nil {
					stallCause = cmp.Or(cause, werr)
				}
				again = append(again, it)
			case refused[i] != nil:
				rejects = append(rejects, rejectOf(it, refused[i]))
			default:
				return stored, rejects, fmt.Errorf("line %d: %w", it.line, cause)
			}
		}
		if recheck {
			valid := again[:0]
			for i := range again {
				if cerr := check(&again[i]); cerr != nil {
					rejects = append(rejects, rejectOf(again[i], cerr))
				} else {
					valid = append(valid, again[i])
				}
			}
			again = valid
		}
		if stored+len(rejects)+int(w.existing) == before {
			if stalls++; stalls >= maxStalls {
				return stored, rejects, fmt.Errorf("line %d: not written after %d attempts: %w", again[0].line, maxStalls, stallCause)
			}
		}
		pending = again
	}
	return stored, rejects, nil
}

// entityRefusal says whether the service refused an operation for what its
// entity is (it exists, a value is out of bounds, ...), so that the other
// operations of its transaction can go without it; a missing table or a
// refused credential concerns them all.
func entityRefusal(err error) bool {
	var se *tablekit.ServiceError
	badRequest := errors.As(err, &se) && se.StatusCode >= 400 && se.StatusCode < 500 && errors.Is(err, tablekit.ErrService)
	return badRequest || errors.Is(err, tablekit.ErrAlreadyExists) ||
		errors.Is(err, tablekit.ErrTooLarge) || errors.Is(err, tablekit.ErrNotFound) ||
		errors.Is(err, tablekit.ErrPreconditionFailed)
}

func rejectOf(it item, err error) reject {
	return reject{Line: it.line, Reason: err.Error(), Input: it.input()}
}

// rejectLine is a reject as one JSON line of the --rejects file.
func rejectLine(r reject) []byte {
	b, _ := json.Marshal(r)
	return append(b, '\n')
}

// importSink writes an input's entities to a table, a round at a time,
// and the lines it refuses to --rejects.
type importSink struct {
	e           *env
	in          *fileSource
	w           *roundWriter
	name        string
	svc         *table.Service
	create      bool
	rejectsPath string
	rejOut      *output
	shown       int // rejects printed
}

func (s *importSink) check(j *job) (err error) {
	s.w.resumed = s.in.resumed
	if s.w.resumed {
		s.w.existing, _ = strconv.ParseInt(j.cp.Extra[extraExisting], 10, 64)
	}
	if s.rejectsPath != "" {
		var resume map[string]string
		if s.w.resumed {
			resume = j.cp.Extra
		}
		s.rejOut, err = openOutputAt(s.rejectsPath, s.e.stdout, resume, extraRejectBytes)
	}
	return err
}

func (s *importSink) open(ctx context.Context, _ *job) error {
	if s.create {
		return s.svc.CreateTable(ctx, s.name)
	}
	return nil
}

func (s *importSink) move(ctx context.Context, j *job) error {
	j.m.inRead, j.m.inTotal = &s.in.read, s.in.inp.size
	if s.w.resumed {
		rejected, _ := strconv.ParseInt(j.cp.Extra[extraRejects], 10, 64)
		j.m.rejects.Store(rejected)
	}
	j.save = func(complete bool) error {
		return saveImport(j.sv, s.rejOut, j.token, j.done, j.m.rejects.Load(), s.w.existing, complete)
	}
	// Unbuffered, as copy's: one round written, one read; reading is far
	// faster than writing, so a third waiting only held memory.
	err := pipe(ctx, 0, func(ctx context.Context, out chan<- round) error { return s.in.rounds(ctx, j.roundOps, out) },
		func(ctx context.Context, r round) error { return s.write(ctx, j, r) })
	j.m.bytes.Store(s.in.read.Load()) // the input's, as stored: the summary says them
	return err
}

// write writes a round and reports its rejects, then moves the position
// past it.
func (s *importSink) write(ctx context.Context, j *job, r round) error {
	existing := s.w.existing
	stored, rejs, err := s.w.write(ctx, r.items)
	if err != nil {
		// The position stays before the round, so the run that
		// resumes writes all of it again and counts it then.
		s.w.existing = existing
		return err
	}
	j.done += int64(stored)
	j.m.add(stored)
	rejs = append(r.rejects, rejs...)
	// In line order: a line the write refused comes after those reading
	// refused otherwise.
	slices.SortStableFunc(rejs, func(a, b reject) int { return cmp.Compare(a.Line, b.Line) })
	for _, rj := range rejs {
		if s.shown++; s.shown <= 20 {
			fmt.Fprintf(s.e.stderr, "tablekit import: line %d: %s\n", rj.Line, message(errors.New(rj.Reason)))
		}
		if s.rejOut != nil {
			if _, err := s.rejOut.Write(rejectLine(rj)); err != nil {
				return err
			}
		}
	}
	j.m.rejects.Add(int64(len(rejs)))
	j.token = r.next
	// Nothing refers to the round's items and text any more: each
	// reject's input is a copy, and the write is done with its entities.
	if pool := s.in.texts.pool; pool != nil {
		pool.put(r)
	}
	return j.saveDue()
}

func (s *importSink) stopped(*job) {
	if s.shown > 20 {
		fmt.Fprintf(s.e.stderr, "tablekit import: %d more rejects not shown\n", s.shown-20)
	}
	if s.w.existing > 0 {
		fmt.Fprintf(s.e.stderr, "tablekit import: %d entities were already there and were left as they are\n", s.w.existing)
	}
}

func (s *importSink) close(j *job, err error) error {
	if s.rejOut != nil {
		s.rejOut.close()
	}
	if err != nil {
		return err
	}
	return rejectsError(j.m.rejects.Load(), s.rejectsPath)
}

// rejectsError is the outcome of an import that rejected n lines: the exit
// status says so.
func rejectsError(n int64, rejectsPath string) error {
	if n == 0 {
		return nil
	}
	if rejectsPath != "" {
		return fmt.Errorf("%d lines rejected (listed in %s)", n, rejectsPath)
	}
	return fmt.Errorf("%d lines rejected (see the messages above)", n)
}

// saveImport syncs the rejects file before the checkpoint names the
// position after the rejects it holds.
func saveImport(sv *saver, rejOut *output, token string, done, rejects, existing int64, complete bool) error {
	sv.Extra = map[string]string{extraRejects: strconv.FormatInt(rejects, 10)}
	if existing > 0 {
		sv.Extra[extraExisting] = strconv.FormatInt(existing, 10)
	}
	if rejOut != nil {
		n, err := rejOut.sync()
		if err != nil {
			return err
		}
		sv.Extra[extraRejectBytes] = strconv.FormatInt(n, 10)
	}
	return sv.save(token, done, complete)
}

// copySink writes a scan's raw entities to another table, a round at a
// time: the position moves past a round once all of it is written.
type copySink struct {
	src    *scanSource
	st, dt *table.Table[table.RawEntity]
	svc    *table.Service // the target's
	create bool
	w      *roundWriter
	cur    *query.ParallelCursor[table.RawEntity]
}

func (*copySink) check(*job) error { return nil }

func (s *copySink) open(ctx context.Context, j *job) (err error) {
	if s.create {
		if err := s.svc.CreateTable(ctx, s.dt.Name()); err != nil {
			return err
		}
	}
	s.src.plan.readers = copyReaders(s.src.plan.parallel)
	gcWrite.apply()
	s.cur, err = scan(s.src, query.New(s.st), j)
	return err
}

func (s *copySink) move(ctx context.Context, j *job) error {
	// Unbuffered: one round written, one being read, and no third waiting.
	// idle: the writer waits for a round, so the reader hands over what it
	// holds rather than keep it waiting for a full one.
	var idle atomic.Bool
	idle.Store(true)
	return pipe(ctx, 0, func(ctx context.Context, out chan<- round) error {
		return scanRounds(ctx, s.cur, j.roundOps, &idle, out)
	},
		func(ctx context.Context, r round) error {
			idle.Store(false)
			defer idle.Store(true)
			stored, rejs, err := s.w.write(ctx, r.items)
			if err != nil {
				// The position stays before the round, so the run that
				// resumes writes all of it again and counts it then.
				return err
			}
			if len(rejs) > 0 {
				// The source holds it, so the target's refusal is not the
				// input's fault: stop before the checkpoint passes it.
				return fmt.Errorf("the target refused %d entities, first %s", len(rejs), rejs[0].Reason)
			}
			j.done += int64(stored)
			j.m.add(stored)
			j.token = r.next
			return j.saveDue()
		})
}

func (*copySink) close(_ *job, err error) error { return err }

// copyReaders bounds the scan's requests in flight, and so what it reads
// ahead: a parallel scan holds about two pages of 1,000 per request in
// flight that the caller has not taken yet. With all 16 of
// --parallel 16 reading, the scan held up to 32,000 decoded entities ahead
// of the writer (which is slower than it), six rounds more than the two
// the copy means to hold: that, not the table, set the peak memory, and it
// rose with the table until the read-ahead was full. A few readers keep
// up with the writer; --parallel still sets the writes in flight and the
// segments (hence the checkpoint's token).
func copyReaders(parallel int) int {
	return min(parallel, maxCopyReaders)
}

const maxCopyReaders = 4

// handoffOps is the least a round handed to a waiting writer holds: a full
// transaction's worth, so that a partition's entities still go in full
// transactions as often as the scan allows.
const handoffOps = batch.MaxOps

// scanRounds cuts the scan into rounds, each carrying the scan's token
// after its last entity: the checkpoint moves there once the round is
// written. At most two rounds are held (one written, one read), so memory
// does not grow with the table. A round is full at ops entities, but while
// idle (when not nil) says the writer waits, one of handoffOps or more goes at once: the
// writes then never wait on reads for entities already read (at the start,
// or when reads are slower than writes), and the rounds are full as soon as
// the writer is the slower.
func scanRounds(ctx context.Context, cur *query.ParallelCursor[table.RawEntity], ops int, idle *atomic.Bool, out chan<- round) error {
	defer close(out)
	var r round
	send := func() error {
		r.next = scanPosition(cur.Token())
		select {
		case out <- r:
			r = round{}
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	var n int64
	for ent, err := range cur.All(ctx) {
		if err != nil {
			return err
		}
		n++
		ent.Meta = table.Meta{}
		it := item{line: n, raw: ent, size: len(ent.PartitionKey) + len(ent.RowKey) + len(ent.Properties)}
		r.items = append(r.items, it)
		r.bytes += it.size
		if len(r.items) >= ops || r.bytes >= roundBytes || len(r.items) >= handoffOps && idle != nil && idle.Load() {
			if err := send(); err != nil {
				return err
			}
		}
	}
	if len(r.items) > 0 {
		return send()
	}
	return nil
}
