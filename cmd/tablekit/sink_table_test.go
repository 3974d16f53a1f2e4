package main

import (
	"slices"
	"sync/atomic"
	"testing"

	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/query"
	"github.com/tablekit/tablekit/table"
)

// TestScanRoundsHandOff: a copy's reader cuts a round at ops entities, but
// hands a waiting writer what it holds from a transaction's worth on, so
// that the writer never waits on reads for entities already read.
func TestScanRoundsHandOff(t *testing.T) {
	az := testenv.Azurite(t)
	parts := partitionKeys("p%02d", 3)
	src := seed(t, az, parts, 150)
	svc, err := table.NewService(az.ConnectionString, nil)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := table.New[table.RawEntity](svc, src)
	if err != nil {
		t.Fatal(err)
	}
	waiting, busy := new(atomic.Bool), new(atomic.Bool)
	waiting.Store(true)
	tests := []struct {
		name string
		ops  int
		idle *atomic.Bool
		want []int
	}{
		{"no writer to wait (dry run)", 5000, nil, []int{450}},
		{"writer busy", 5000, busy, []int{450}},
		{"writer waiting", 5000, waiting, []int{100, 100, 100, 100, 50}},
		{"full rounds", 200, nil, []int{200, 200, 50}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := testenv.Ctx(t)
			cur, err := query.New(raw).Parallel(query.PartitionSegments(parts...), nil)
			if err != nil {
				t.Fatal(err)
			}
			out := make(chan round)
			errc := make(chan error, 1)
			go func() { errc <- scanRounds(ctx, cur, tt.ops, tt.idle, out) }()
			var got []int
			for r := range out {
				got = append(got, len(r.items))
				if r.next == "" {
					t.Errorf("round %d: no position after it", len(got))
				}
			}
			if err := <-errc; err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("round sizes: got %v, want %v", got, tt.want)
			}
		})
	}
}
