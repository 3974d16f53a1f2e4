package batch_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/batch"
	"github.com/tablekit/tablekit/devtools/testenv"
)

// TestPlanMatchesWrite checks that Plan counts the transactions Write
// sends: the same number, of the same sizes.
func TestPlanMatchesWrite(t *testing.T) {
	big := make([]byte, 48<<10) // 64 KiB in base64: about 60 fit the 4 MiB body
	cases := []struct {
		name string
		ops  func() []batch.Op[item]
	}{
		{"one partition", func() []batch.Op[item] { return upserts(250, 1, nil) }},
		{"interleaved partitions", func() []batch.Op[item] { return upserts(530, 3, nil) }},
		{"bodies fill first", func() []batch.Op[item] { return upserts(150, 1, big) }},
		{"an entity twice", func() []batch.Op[item] {
			ops := upserts(10, 1, nil)
			return append(ops, ops[3], ops[4])
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := &batchRecorder{}
			tbl := newRecordedTable(t, rec, nil)
			ops := c.ops()
			plan, err := batch.Plan(tbl, ops)
			if err != nil {
				t.Fatalf("Plan: %v", err)
			}
			if _, err := batch.Write(testenv.Ctx(t), tbl, ops, nil); err != nil {
				t.Fatalf("Write: %v", err)
			}
			_, sent := rec.snapshot()
			var got []int
			for _, b := range sent {
				got = append(got, b.ops)
			}
			want := slices.Clone(plan)
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("transactions sent (sizes sorted): got %v, want Plan's %v", got, want)
			}
		})
	}
}

// TestPlanInvalid checks that an operation Write would refuse is an error
// naming its index, before anything is sent.
func TestPlanInvalid(t *testing.T) {
	rec := &batchRecorder{}
	tbl := newRecordedTable(t, rec, nil)
	before, _ := rec.snapshot() // creating the table
	ops := upserts(5, 1, nil)
	ops[3].Entity.RowKey = "bad/key"
	_, err := batch.Plan(tbl, ops)
	var ve *tablekit.ValidationError
	if !errors.As(err, &ve) || ve.Index != 3 {
		t.Fatalf("Plan: got %v, want a ValidationError at index 3", err)
	}
	if calls, _ := rec.snapshot(); calls != before {
		t.Errorf("requests sent by Plan: got %d, want 0", calls-before)
	}
}

// upserts are n upserts spread over parts partitions, each with b.
func upserts(n, parts int, b []byte) []batch.Op[item] {
	ops := make([]batch.Op[item], n)
	for i := range ops {
		ops[i] = batch.Op[item]{Entity: item{PartitionKey: fmt.Sprintf("p%d", i%parts), RowKey: fmt.Sprintf("r%05d", i), B: b}}
	}
	return ops
}
