package batch_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/batch"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/table"
)

// noise is random bytes that binary values are cut from.
var noise = func() []byte {
	r := rand.New(rand.NewPCG(11, 13))
	b := make([]byte, 128*1024)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}()

// load makes n upserts over parts partitions, interleaved (operation i is
// on partition i%parts), with mixed sizes: mostly under 400 bytes, some of
// 1 to 4 KB, some 30 Ki-character strings and some 60 KiB binary values.
func load(n, parts int, seed uint64) []batch.Op[item] {
	r := rand.New(rand.NewPCG(seed, 7))
	ops := make([]batch.Op[item], n)
	for i := range ops {
		e := item{PartitionKey: fmt.Sprintf("p%02d", i%parts), RowKey: fmt.Sprintf("r%06d", i), N: int64(i)}
		switch x := r.IntN(1000); {
		case x < 850:
			e.S = strings.Repeat(string(rune('a'+i%26)), r.IntN(400))
		case x < 980:
			e.S = strings.Repeat("0123456789abcdef", 64+r.IntN(192))
		case x < 995:
			e.S = strings.Repeat("s", 30*1024)
		default:
			off := r.IntN(len(noise) - 60*1024)
			e.B = noise[off : off+60*1024]
		}
		ops[i] = batch.Op[item]{Entity: e}
	}
	return ops
}

// progressLog records Progress calls and checks they never go backwards.
type progressLog struct {
	t     *testing.T
	mu    sync.Mutex
	calls []batch.Progress
	hook  func(batch.Progress)
}

func (l *progressLog) record(p batch.Progress) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n := len(l.calls); n > 0 {
		prev := l.calls[n-1]
		if prev.Final {
			l.t.Errorf("Progress called after the Final call: %+v", p)
		}
		if p.Ops < prev.Ops || p.Chunks < prev.Chunks || p.OpsTotal < prev.OpsTotal || p.ChunksTotal < prev.ChunksTotal || p.Retries < prev.Retries || p.Throttled < prev.Throttled || p.Failed < prev.Failed {
			l.t.Errorf("Progress went backwards: %+v after %+v", p, prev)
		}
	}
	if p.Ops > p.OpsTotal || p.Chunks+p.Failed > p.ChunksTotal {
		l.t.Errorf("Progress beyond its totals: %+v", p)
	}
	l.calls = append(l.calls, p)
	if l.hook != nil {
		l.hook(p)
	}
}

func (l *progressLog) last() batch.Progress {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.calls) == 0 {
		return batch.Progress{}
	}
	return l.calls[len(l.calls)-1]
}

// checkStored compares the table with the expected entities, exactly.
func checkStored(t *testing.T, tbl *table.Table[item], want map[string]item) {
	t.Helper()
	got := readAll(t, tbl)
	if len(got) != len(want) {
		t.Errorf("table has %d entities, want %d", len(got), len(want))
	}
	bad := 0
	for k, w := range want {
		if g, ok := got[k]; !ok || !same(g, w) {
			if bad++; bad <= 5 {
				t.Errorf("%s: stored %+v (present %v), want N=%d len(S)=%d len(T)=%d len(B)=%d", k, brief(g), ok, w.N, len(w.S), len(w.T), len(w.B))
			}
		}
	}
	if bad > 5 {
		t.Errorf("... %d entities differ in all", bad)
	}
}

func brief(e item) string {
	return fmt.Sprintf("{%s/%s N=%d len(S)=%d len(T)=%d len(B)=%d}", e.PartitionKey, e.RowKey, e.N, len(e.S), len(e.T), len(e.B))
}

// lastWritten applies upserts (replace) in order: the expected table.
func lastWritten(ops []batch.Op[item]) map[string]item {
	want := map[string]item{}
	for _, op := range ops {
		want[op.Entity.PartitionKey+"/"+op.Entity.RowKey] = op.Entity
	}
	return want
}

// TestSoakWriteLoad: 20,000 entities of mixed sizes over 50 partitions
// (5,000 over 20 under -short or -race), given interleaved, are all stored exactly; transactions are packed to 95% of the
// limit that binds; progress totals are exact.
func TestSoakWriteLoad(t *testing.T) {
	entities, partitions := testenv.Size(20000, 5000), testenv.Size(50, 20)
	rec := &batchRecorder{}
	tbl := newRecordedTable(t, rec, nil)
	ops := load(entities, partitions, 1)
	plog := &progressLog{t: t}
	start := time.Now()
	sum, err := batch.Write(testenv.Context(t, 3*time.Minute), tbl, ops, &batch.WriteOptions{Progress: plog.record})
	elapsed := time.Since(start)
	if err != nil {
		t.Fatalf("Write: %v", err)
	}
	_, requests := rec.snapshot()
	t.Logf("%d operations in %d transactions in %v (%.0f/s), %d retries", sum.Ops, sum.Chunks, elapsed.Round(time.Millisecond), float64(sum.Ops)/elapsed.Seconds(), sum.Retries)

	// A retried transaction is recorded once per attempt, one after the
	// other within its partition: count it once.
	byPK := map[string][]sentBatch{}
	sent := 0
	for _, b := range requests {
		if bs := byPK[b.pk]; len(bs) > 0 && bs[len(bs)-1].rk == b.rk {
			continue
		}
		byPK[b.pk] = append(byPK[b.pk], b)
		sent++
	}
	if sum.Ops != len(ops) || sum.Chunks != sent || sum.Read != len(ops) || sum.Incomplete != nil || sum.Duration <= 0 {
		t.Errorf("Summary = %+v, want %d ops in %d chunks", sum, len(ops), sent)
	}
	for i := range ops {
		if sum.State(i) != batch.Committed {
			t.Fatalf("State(%d) = %v", i, sum.State(i))
		}
	}
	final := plog.last()
	want := batch.Progress{Ops: len(ops), OpsTotal: len(ops), Chunks: sent, ChunksTotal: sent, Final: true}
	if final != want {
		t.Errorf("last Progress = %+v, want %+v", final, want)
	}
	if n := len(plog.calls); n != sent+1 {
		t.Errorf("%d Progress calls, want one per transaction and a final one (%d)", n, sent+1)
	}
	for _, p := range plog.calls {
		if p.OpsTotal != len(ops) {
			t.Fatalf("Progress.OpsTotal = %d, want %d from the start", p.OpsTotal, len(ops))
		}
	}

	// Packing: per partition, every transaction but the last holds 100
	// operations or at least 95% of 4 MiB.
	if len(byPK) != partitions {
		t.Errorf("transactions on %d partitions, want %d", len(byPK), partitions)
	}
	minFill := 1.0
	for pk, bs := range byPK {
		for i, b := range bs[:len(bs)-1] {
			fill := max(float64(b.ops)/batch.MaxOps, float64(b.size)/float64(storageBody))
			minFill = min(minFill, fill)
			if fill < 0.95 {
				t.Errorf("partition %s transaction %d: %d ops, %d bytes: %.1f%% full", pk, i, b.ops, b.size, 100*fill)
			}
		}
	}
	t.Logf("fullest limit of every transaction but the last of each partition: at least %.1f%%", 100*minFill)
	checkStored(t, tbl, lastWritten(ops))
}

// TestWriteSeq streams operations through a small buffer: the memory bound
// closes transactions early, and everything is still written.
func TestWriteSeq(t *testing.T) {
	rec := &batchRecorder{}
	tbl := newRecordedTable(t, rec, nil)
	ops := load(3000, 10, 2)
	plog := &progressLog{t: t}
	var seq iter.Seq[batch.Op[item]] = slices.Values(ops)
	sum, err := batch.WriteSeq(testenv.Ctx(t), tbl, seq, &batch.WriteOptions{MaxBuffered: 1 << 20, InFlight: 2, Progress: plog.record})
	if err != nil {
		t.Fatalf("WriteSeq: %v", err)
	}
	_, sent := rec.snapshot()
	final := plog.last()
	want := batch.Progress{Ops: len(ops), OpsTotal: len(ops), Chunks: len(sent), ChunksTotal: len(sent), Final: true}
	if final != want || sum.Ops != len(ops) || sum.Read != len(ops) {
		t.Errorf("last Progress = %+v, want %+v; summary %+v", final, want, sum)
	}
	if first := plog.calls[0]; first.OpsTotal >= len(ops) {
		t.Errorf("first Progress.OpsTotal = %d: the total grows as the sequence is read", first.OpsTotal)
	}
	for _, b := range sent {
		if b.size >= storageBody || b.ops > batch.MaxOps {
			t.Errorf("sent %d operations in %d bytes", b.ops, b.size)
		}
	}
	checkStored(t, tbl, lastWritten(ops))

	// Breaking out of nothing: an empty sequence writes nothing.
	sum, err = batch.WriteSeq(testenv.Ctx(t), tbl, func(func(batch.Op[item]) bool) {}, nil)
	if err != nil || sum.Ops != 0 || sum.Chunks != 0 {
		t.Errorf("empty WriteSeq: %+v, %v", sum, err)
	}
}

// TestWriteKeepsOrderOnEntity: repeated operations on one entity apply in
// input order, with and without Reorder.
func TestWriteKeepsOrderOnEntity(t *testing.T) {
	for _, reorder := range []bool{false, true} {
		t.Run(fmt.Sprint("reorder=", reorder), func(t *testing.T) {
			rec := &batchRecorder{}
			tbl := newRecordedTable(t, rec, nil)
			lists := map[string][]batch.Op[item]{}
			e := func(pk string, i, v int) item {
				return item{PartitionKey: pk, RowKey: fmt.Sprintf("e%03d", i), N: int64(v)}
			}
			for _, pk := range []string{"rounds", "bursts", "mixed"} {
				var ops []batch.Op[item]
				switch pk {
				case "rounds": // every entity once per round, 4 rounds
					for v := range 4 {
						for i := range 150 {
							ops = append(ops, batch.Op[item]{Entity: e(pk, i, v)})
						}
					}
				case "bursts": // each entity 4 times in a row
					for i := range 150 {
						for v := range 4 {
							ops = append(ops, batch.Op[item]{Entity: e(pk, i, v)})
						}
					}
				case "mixed": // merges, deletes and re-adds, with big values
					for i := range 60 {
						big := e(pk, i, 1)
						big.S = strings.Repeat("x", 20000+i*100)
						partial := item{PartitionKey: pk, RowKey: big.RowKey, N: 2, T: "merged"}
						ops = append(ops,
							batch.Op[item]{Entity: big},
							batch.Op[item]{Entity: partial, Mode: table.Merge},
						)
						if i > 0 { // the previous entity: deleted, then added again
							ops = append(ops,
								batch.Op[item]{Kind: batch.Delete, PartitionKey: pk, RowKey: fmt.Sprintf("e%03d", i-1), ETag: table.AnyETag},
								batch.Op[item]{Kind: batch.Add, Entity: e(pk, i-1, 3)},
							)
						}
					}
				}
				lists[pk] = ops
			}
			// Interleave the partitions, keeping each one's order.
			var ops []batch.Op[item]
			for i := 0; len(ops) < len(lists["rounds"])+len(lists["bursts"])+len(lists["mixed"]); i++ {
				for _, pk := range []string{"rounds", "bursts", "mixed"} {
					if i < len(lists[pk]) {
						ops = append(ops, lists[pk][i])
					}
				}
			}
			sum, err := batch.Write(testenv.Ctx(t), tbl, ops, &batch.WriteOptions{Reorder: reorder})
			if err != nil {
				t.Fatalf("Write: %v", err)
			}
			// The model: apply the operations in input order.
			want := map[string]item{}
			for _, op := range ops {
				k := op.Entity.PartitionKey + "/" + op.Entity.RowKey
				switch {
				case op.Kind == batch.Delete:
					delete(want, op.PartitionKey+"/"+op.RowKey)
				case op.Mode == table.Merge:
					w := want[k]
					w.PartitionKey, w.RowKey, w.N, w.T = op.Entity.PartitionKey, op.Entity.RowKey, op.Entity.N, op.Entity.T
					want[k] = w
				default:
					want[k] = op.Entity
				}
			}
			checkStored(t, tbl, want)
			_, sent := rec.snapshot()
			t.Logf("%d operations in %d transactions", sum.Ops, len(sent))
		})
	}
}

// twoPhaseLoad: partitions A, B and C of 250 upserts each; B's operation
// 150 adds an entity that exists, so B's second transaction fails.
func twoPhaseLoad(t *testing.T, tbl *table.Table[item]) (ops []batch.Op[item], failAt int) {
	t.Helper()
	if _, err := tbl.Upsert(testenv.Ctx(t), item{PartitionKey: "B", RowKey: "taken"}, table.Replace); err != nil {
		t.Fatal(err)
	}
	for _, pk := range []string{"A", "B", "C"} {
		for i := range 250 {
			op := batch.Op[item]{Entity: item{PartitionKey: pk, RowKey: fmt.Sprintf("r%03d", i), N: int64(i)}}
			if pk == "B" && i == 150 {
				op = batch.Op[item]{Kind: batch.Add, Entity: item{PartitionKey: "B", RowKey: "taken", N: -1}}
				failAt = len(ops)
			}
			ops = append(ops, op)
		}
	}
	return ops, failAt
}

// checkStates compares each operation's State with the table: committed
// upserts are stored, others are not.
func checkStates(t *testing.T, tbl *table.Table[item], ops []batch.Op[item], sum batch.Summary) map[batch.State]int {
	t.Helper()
	got := readAll(t, tbl)
	count := map[batch.State]int{}
	for i, op := range ops {
		st := sum.State(i)
		count[st]++
		if op.Kind != batch.Upsert {
			continue
		}
		k := op.Entity.PartitionKey + "/" + op.Entity.RowKey
		g, stored := got[k]
		switch st {
		case batch.Committed:
			if !stored || !same(g, op.Entity) {
				t.Errorf("op %d (%s) is Committed but not stored", i, k)
			}
		case batch.Failed, batch.NotSent:
			if stored {
				t.Errorf("op %d (%s) is %v but stored", i, k, st)
			}
		}
	}
	return count
}

func TestWriteFailureReport(t *testing.T) {
	for _, cont := range []bool{false, true} {
		t.Run(fmt.Sprint("ContinueOnError=", cont), func(t *testing.T) {
			tbl := newRecordedTable(t, nil, nil)
			ops, failAt := twoPhaseLoad(t, tbl)
			sum, err := batch.Write(testenv.Ctx(t), tbl, ops, &batch.WriteOptions{ContinueOnError: cont})
			var oe *tablekit.ServiceError
			if !errors.Is(err, tablekit.ErrIncomplete) || !errors.Is(err, tablekit.ErrAlreadyExists) || !errors.As(err, &oe) {
				t.Fatalf("Write error %v, want tablekit.ErrIncomplete wrapping the OpError", err)
			}
			// The failed transaction is reported with the failing operation.
			var failed []batch.Chunk
			for _, c := range sum.Incomplete {
				if c.State == batch.Failed {
					failed = append(failed, c)
				}
			}
			if len(failed) != 1 || failed[0].PartitionKey != "B" {
				t.Fatalf("failed chunks %+v, want one on B", failed)
			}
			if oe.Index != failAt || !slices.Contains(failed[0].Ops, failAt) {
				t.Errorf("the OpError's Index is %d, want the input position %d (in chunk %v)", oe.Index, failAt, failed[0].Ops)
			}
			if sum.State(failAt) != batch.Failed {
				t.Errorf("State(%d) = %v, want Failed", failAt, sum.State(failAt))
			}
			// B: a committed prefix (its first transaction), then nothing.
			bState := func(i int) batch.State { return sum.State(250 + i) }
			for i := range 100 {
				if bState(i) != batch.Committed {
					t.Fatalf("B op %d: %v, want Committed (first transaction)", i, bState(i))
				}
			}
			for i := 200; i < 250; i++ {
				if bState(i) != batch.NotSent {
					t.Fatalf("B op %d: %v, want NotSent (after the failure)", i, bState(i))
				}
			}
			for _, c := range sum.Incomplete {
				if c.State == batch.NotSent && !strings.HasPrefix(c.Err.Error(), "batch: not sent") {
					t.Errorf("not-sent chunk with error %v", c.Err)
				}
			}
			count := checkStates(t, tbl, ops, sum)
			if count[batch.Unknown] != 0 {
				t.Errorf("%d operations Unknown", count[batch.Unknown])
			}
			if sum.Ops != count[batch.Committed] {
				t.Errorf("Summary.Ops = %d, %d operations Committed", sum.Ops, count[batch.Committed])
			}
			if cont {
				// A and C are complete.
				for i := range 250 {
					if sum.State(i) != batch.Committed || sum.State(500+i) != batch.Committed {
						t.Fatalf("with ContinueOnError, A and C must commit: op %d %v, %d %v", i, sum.State(i), 500+i, sum.State(500+i))
					}
				}
			}
			t.Logf("states: %v; %d chunks incomplete", count, len(sum.Incomplete))
		})
	}
}

// TestWriteInvalidOperation: an invalid operation fails alone, before
// sending; the operations of its partition before it are written, those
// after are not.
func TestWriteInvalidOperation(t *testing.T) {
	tbl := newRecordedTable(t, nil, nil)
	var ops []batch.Op[item]
	for _, pk := range []string{"A", "B", "C"} {
		for i := range 150 {
			ops = append(ops, batch.Op[item]{Entity: item{PartitionKey: pk, RowKey: fmt.Sprintf("r%03d", i)}})
		}
	}
	bad := 150 + 120
	ops[bad].Entity.S = strings.Repeat("x", 40000)
	sum, err := batch.Write(testenv.Ctx(t), tbl, ops, &batch.WriteOptions{ContinueOnError: true})
	var ie *tablekit.ValidationError
	if !errors.Is(err, tablekit.ErrInvalid) || !errors.As(err, &ie) || ie.Index != bad {
		t.Fatalf("Write error %v, want tablekit.ErrInvalid at %d", err, bad)
	}
	for i := range ops {
		var want batch.State
		switch {
		case i == bad:
			want = batch.Failed
		case i > bad && i < 300:
			want = batch.NotSent
		default:
			want = batch.Committed
		}
		if sum.State(i) != want {
			t.Fatalf("State(%d) = %v, want %v", i, sum.State(i), want)
		}
	}
	checkStates(t, tbl, ops, sum)
}

// TestWriteCancel: cancelling stops the writer promptly and the Summary
// says exactly what was committed.
func TestWriteCancel(t *testing.T) {
	tbl := newRecordedTable(t, nil, nil)
	ops := load(6000, 10, 3)
	ctx, cancel := context.WithCancel(testenv.Ctx(t))
	defer cancel()
	plog := &progressLog{t: t}
	plog.hook = func(p batch.Progress) {
		if p.Chunks == 5 {
			cancel()
		}
	}
	start := time.Now()
	sum, err := batch.Write(ctx, tbl, ops, &batch.WriteOptions{InFlight: 2, Progress: plog.record})
	if !errors.Is(err, context.Canceled) || !errors.Is(err, tablekit.ErrIncomplete) {
		t.Fatalf("Write error %v, want context.Canceled and tablekit.ErrIncomplete", err)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("Write took %v after cancel", d)
	}
	count := checkStates(t, tbl, ops, sum)
	if count[batch.Committed] < 5*100 || count[batch.NotSent] == 0 {
		t.Errorf("states %v: want at least the 5 transactions before the cancel committed and some not sent", count)
	}
	if sum.Ops != count[batch.Committed] {
		t.Errorf("Summary.Ops = %d, %d Committed", sum.Ops, count[batch.Committed])
	}
	if f := plog.last(); !f.Final || f.Ops != sum.Ops {
		t.Errorf("last Progress %+v", f)
	}
	t.Logf("after cancel: %v", count)
}

// TestWritePacksBySize: when entities are big, the 4 MiB limit binds and
// transactions are filled to it.
func TestWritePacksBySize(t *testing.T) {
	mk := func(n int, minKB, maxKB int, seed uint64) []batch.Op[item] {
		r := rand.New(rand.NewPCG(seed, 9))
		var ops []batch.Op[item]
		for i := range n {
			e := item{PartitionKey: "p", RowKey: fmt.Sprintf("r%04d", i)}
			size := (minKB + r.IntN(maxKB-minKB+1)) * 1024
			// Up to 64 KiB binary, the rest in 32 Ki-character strings.
			b := min(size, 48*1024)
			e.B = noise[i : i+b]
			size -= b * 4 / 3
			if size > 0 {
				e.S = strings.Repeat("s", min(size, 32*1024))
				size -= len(e.S)
			}
			if size > 0 {
				e.T = strings.Repeat("t", min(size, 32*1024))
			}
			ops = append(ops, batch.Op[item]{Entity: e})
		}
		return ops
	}
	tests := []struct {
		name    string
		ops     []batch.Op[item]
		reorder bool
		minFill float64
	}{
		// Entities up to 5% of 4 MiB: cut only when the next does not fit.
		{"20 to 120 KB in order", mk(150, 20, 120, 1), false, 0.95},
		// Entities of 100 to 130 KB with first fit over 4 open transactions.
		{"100 to 130 KB reordered", mk(100, 100, 130, 2), true, 0.95},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &batchRecorder{}
			tbl := newRecordedTable(t, rec, nil)
			sum, err := batch.Write(testenv.Ctx(t), tbl, tt.ops, &batch.WriteOptions{Reorder: tt.reorder})
			if err != nil {
				t.Fatalf("Write: %v", err)
			}
			_, sent := rec.snapshot()
			byPK := map[string][]sentBatch{}
			for _, b := range sent {
				byPK[b.pk] = append(byPK[b.pk], b)
			}
			lowest := 1.0
			for pk, bs := range byPK {
				for i, b := range bs[:len(bs)-1] {
					if b.size >= storageBody {
						t.Errorf("%s #%d: %d bytes sent", pk, i, b.size)
					}
					fill := max(float64(b.ops)/batch.MaxOps, float64(b.size)/float64(storageBody))
					lowest = min(lowest, fill)
					if fill < tt.minFill {
						t.Errorf("%s #%d: %d ops, %d bytes: %.1f%% full, want %.0f%%", pk, i, b.ops, b.size, 100*fill, 100*tt.minFill)
					}
				}
			}
			t.Logf("%d operations in %d transactions; every one but the last of a partition at least %.1f%% full", sum.Ops, len(sent), 100*lowest)
			checkStored(t, tbl, lastWritten(tt.ops))
		})
	}
}
