package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"runtime"
	"runtime/metrics"
	"sync/atomic"
	"time"

	"github.com/tablekit/tablekit/devtools/workload"
	"github.com/tablekit/tablekit/query"
)

// The heap of a parallel scan is measured in a child process (this program
// again, told so by heapScanEnv), so that nothing else this process holds
// (the 50,000 source items of the inserts, the proxy, earlier garbage)
// counts: the child holds only the table client and the scan.
const heapScanEnv = "TABLEKIT_BENCH_HEAP_SCAN"

// heapLimit is the target for the scan's peak Go heap.
const heapLimit = 32 << 20

type heapJob struct {
	Endpoint, Table string
	Parallel        int
}

type heapResult struct {
	N          int
	Peak, Base int64
	// CPU is the scan's own client CPU, from before it connected to its
	// end: the process's start (this program's packages, larger than the
	// command's) left out.
	CPU time.Duration
}

func init() {
	for _, c := range []struct {
		env    string
		sample bool
	}{{heapScanEnv, true}, {libScanEnv, false}} {
		job := os.Getenv(c.env)
		if job == "" {
			continue
		}
		if err := scanChild(job, c.sample); err != nil {
			fmt.Fprintln(os.Stderr, "bench scan child:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
}

// heapObjects is the Go heap's object bytes, live and not yet swept.
func heapObjects() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}

// scanChild runs the parallel scan of job, with sample sampling the heap
// every 2 ms after a GC before it, and prints a heapResult on stdout.
func scanChild(job string, sample bool) error {
	cpu0 := workload.CPUTime()
	var j heapJob
	if err := json.Unmarshal([]byte(job), &j); err != nil {
		return err
	}
	tbl, err := tkTable(j.Endpoint, j.Table, nil)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if !sample {
		n, err := scanTkParallel(ctx, query.New(tbl), workload.PartitionKeys(), j.Parallel)
		if err != nil {
			return err
		}
		return json.NewEncoder(os.Stdout).Encode(heapResult{N: n, CPU: workload.CPUTime() - cpu0})
	}
	runtime.GC()
	base := heapObjects()
	var peak atomic.Int64
	peak.Store(base)
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			if h := heapObjects(); h > peak.Load() {
				peak.Store(h)
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	n, err := scanTkParallel(ctx, query.New(tbl), workload.PartitionKeys(), j.Parallel)
	close(done)
	<-stopped
	if err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(heapResult{N: n, Peak: peak.Load(), Base: base})
}

// runHeapScans scans the table name in a child process per round and
// records the child's peak heap.
func (b *bench) runHeapScans(ctx context.Context, name string) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	job, _ := json.Marshal(heapJob{Endpoint: b.direct, Table: name, Parallel: b.cfg.scanParallel})
	for round := range b.cfg.rounds {
		rctx, cancel := context.WithTimeout(ctx, b.cfg.scenarioTimeout)
		var res heapResult
		s, err := b.m.measure(rctx, func(ctx context.Context) (n int, err error) {
			res, err = runScanChild(ctx, exe, heapScanEnv+"="+string(job))
			return res.N, err
		})
		cancel()
		if err == nil && s.n != len(b.items) {
			err = fmt.Errorf("read %d entities, want %d", s.n, len(b.items))
		}
		if err != nil {
			return fmt.Errorf("heap/scan round %d: %w", round+1, err)
		}
		s.heapPeak, s.heapBase = res.Peak, res.Base
		b.record("heap/scan", s)
	}
	return nil
}

// runScanChild runs this program again with env added to its environment
// (the job of scanChild, and the collector's settings) and returns what
// it printed.
func runScanChild(ctx context.Context, exe string, env ...string) (heapResult, error) {
	var res heapResult
	cmd := exec.CommandContext(ctx, exe)
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return res, fmt.Errorf("%w: %s", err, errb.Bytes())
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		return res, fmt.Errorf("child said %q: %w", out.Bytes(), err)
	}
	return res, nil
}

// heapPeak is the highest peak heap over the rounds of key, in bytes.
func (b *bench) heapPeak(key string) (peak, base float64) {
	peak, base = math.NaN(), math.NaN()
	for _, s := range b.res[key] {
		if math.IsNaN(peak) || float64(s.heapPeak) > peak {
			peak, base = float64(s.heapPeak), float64(s.heapBase)
		}
	}
	return peak, base
}

func mib(x float64) string { return fmtNum(x/(1<<20)) + " MiB" }

// heapTarget checks the parallel scan's peak Go heap, the highest of its
// rounds.
func (b *bench) heapTarget() Target {
	t := Target{
		Name: fmt.Sprintf("parallel scan of %s entities, %d in flight: peak Go heap", fmtInt(b.cfg.entities), b.cfg.scanParallel),
		Want: "<= " + mib(heapLimit),
		Got:  "n/a",
	}
	peak, base := b.heapPeak("heap/scan")
	if math.IsNaN(peak) {
		return t
	}
	t.Got = fmt.Sprintf("%s (%s live before the scan)", mib(peak), mib(base))
	t.Status = Fail
	if peak <= heapLimit {
		t.Status = Pass
	} else {
		t.Why = fmt.Sprintf("the heap objects of the child process peaked at %s: %d requests in flight each hold a page of up to 1,000 entities while it is decoded, and garbage accumulates up to the collector's target (GOGC=100: twice the live heap) before a collection.", mib(peak), b.cfg.scanParallel)
	}
	return t
}
