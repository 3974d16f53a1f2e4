package main

import (
	"flag"
	"fmt"
	"testing"
	"time"

	"github.com/tablekit/tablekit/devtools/workload"
)

// overheadObs is one testing.Benchmark result, per entity.
type overheadObs struct {
	cpuNs  float64 // process CPU (all threads) per entity
	wallNs float64
	allocs float64
	bytes  float64
	runs   int // b.N
}

// runOverhead runs the client-overhead benchmarks of package workload
// (the functions `go test -bench . ./devtools/workload` runs) through
// testing.Benchmark, round by round so that drift hits them all alike.
func (b *bench) runOverhead() (map[string][]overheadObs, error) {
	setBenchTime(b.cfg.benchTime)
	out := map[string][]overheadObs{}
	for round := range b.cfg.overheadRounds {
		for _, bb := range workload.Benchmarks() {
			r := testing.Benchmark(bb.F)
			if r.N == 0 {
				return nil, fmt.Errorf("benchmark %s failed (round %d)", bb.Name, round+1)
			}
			per := float64(bb.PerOp)
			o := overheadObs{
				cpuNs:  r.Extra[workload.CPUMetric],
				wallNs: float64(r.T.Nanoseconds()) / float64(r.N) / per,
				allocs: float64(r.MemAllocs) / float64(r.N) / per,
				bytes:  float64(r.MemBytes) / float64(r.N) / per,
				runs:   r.N,
			}
			out[bb.Name] = append(out[bb.Name], o)
			b.log("%-28s cpu %8.0f ns/entity, wall %8.0f ns/entity, %6.1f allocs/entity", bb.Name, o.cpuNs, o.wallNs, o.allocs)
		}
	}
	return out, nil
}

// setBenchTime sets the time testing.Benchmark spends per benchmark
// (-test.benchtime; the testing package's flags are registered on demand).
func setBenchTime(d time.Duration) {
	testing.Init()
	if f := flag.Lookup("test.benchtime"); f != nil {
		_ = f.Value.Set(d.String())
	}
}
