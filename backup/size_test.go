package backup_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tablekit/tablekit/backup"
	"github.com/tablekit/tablekit/batch"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/table"
)

// TestIncrementalIsSmall: after 1% of a table's entities (about 1 KB each)
// changed, an incremental backup by Timestamp stores at most 5% of the
// bytes of a full backup and reads at most 25% of its bytes from the
// service (the keys-only scan is most of it). Byte counts, not times.
func TestIncrementalIsSmall(t *testing.T) {
	ctx := testenv.Ctx(t)
	env := testenv.Azurite(t)
	rec := testenv.NewRecorder()
	svc := env.NewService(t, &table.Options{Transport: rec})
	tb := testenv.NewTable[table.Entity](t, svc)
	n := testenv.Size(2000, 1000)
	rng := rand.New(rand.NewPCG(3, 4))
	pad := func() string {
		b := make([]byte, 1000)
		for i := range b {
			b[i] = byte('a' + rng.IntN(26))
		}
		return string(b)
	}
	write := func(from, to int) {
		var ops []batch.Op[table.Entity]
		for i := from; i < to; i++ {
			e := table.NewEntity(fmt.Sprintf("p%02d", i%20), fmt.Sprintf("%06d", i))
			e.Properties = map[string]any{"Pad": pad(), "N": int32(i)}
			ops = append(ops, batch.Op[table.Entity]{Entity: e})
		}
		if _, err := batch.Write(ctx, tb, ops, nil); err != nil {
			t.Fatal(err)
		}
	}
	write(0, n)
	time.Sleep(10 * time.Millisecond) // the seed's Timestamps before the overlap
	st := backup.Dir(t.TempDir())
	o := &backup.Options{Overlap: time.Millisecond} // one clock: Azurite's is this machine's
	before := rec.Bytes()
	full, err := backup.Run(ctx, svc, tb.Name(), st, o)
	if err != nil {
		t.Fatal(err)
	}
	fullRead := rec.Bytes() - before
	write(0, n/100) // 1% changed
	before = rec.Bytes()
	incr, err := backup.Run(ctx, svc, tb.Name(), st, o)
	if err != nil {
		t.Fatal(err)
	}
	incrRead := rec.Bytes() - before
	if incr.Full || incr.Written != int64(n/100) {
		t.Fatalf("incremental backup: full %v, written %d; want false, %d", incr.Full, incr.Written, n/100)
	}
	t.Logf("full: %d bytes read, %d stored; incremental: %d read, %d stored", fullRead, full.Bytes, incrRead, incr.Bytes)
	if got, limit := incr.Bytes, full.Bytes*5/100; got > limit {
		t.Errorf("incremental stored %d bytes, want at most 5%% of the full backup's %d (%d)", got, full.Bytes, limit)
	}
	if got, limit := incrRead, fullRead*25/100; got > limit {
		t.Errorf("incremental read %d bytes, want at most 25%% of the full backup's %d (%d)", got, fullRead, limit)
	}
}
