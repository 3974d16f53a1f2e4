package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tablekit/tablekit/devtools/workload"
)

// sample is one timed run of a scenario.
type sample struct {
	n     int           // entities (or requests) handled
	wall  time.Duration // elapsed time
	cpu   time.Duration // CPU of this process (user+sys, all threads)
	srv   time.Duration // CPU of the Azurite process group; -1 if unknown
	js    time.Duration // CPU of Azurite's JavaScript thread, which runs every request; -1 if unknown
	bytes int64         // bytes received, where the scenario counts them
	body  int64         // response body bytes, where counted
	conns int           // new TCP connections, where counted
	reqs  int           // requests sent, where counted
	sys   float64       // share of all cores busy (every process), -1 if unknown

	heapPeak, heapBase int64 // Go heap objects: peak during the run, live before it
	rss                int64 // peak resident set of a subprocess, KiB
}

func (s sample) rate() float64 {
	if s.wall <= 0 {
		return 0
	}
	return float64(s.n) / s.wall.Seconds()
}

// perEntity returns d per entity in microseconds.
func (s sample) perEntity(d time.Duration) float64 {
	if s.n == 0 {
		return 0
	}
	return float64(d.Microseconds()) / float64(s.n)
}

// median returns the median of xs (the mean of the two middle values for an
// even count); 0 for none.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	m := len(s) / 2
	if len(s)%2 == 1 {
		return s[m]
	}
	return (s[m-1] + s[m]) / 2
}

func mapSamples(ss []sample, f func(sample) float64) []float64 {
	out := make([]float64, len(ss))
	for i, s := range ss {
		out[i] = f(s)
	}
	return out
}

// meter times a run and takes the CPU of this process and of Azurite
// around it.
type meter struct {
	srv *procCPU // nil when Azurite's process is not found
}

func (m *meter) measure(ctx context.Context, f func(ctx context.Context) (int, error)) (sample, error) {
	runtime.GC()
	busy0, total0 := machineCPU()
	c0, s0, j0 := workload.CPUTime(), m.srv.read(), m.srv.readMain()
	t0 := time.Now()
	n, err := f(ctx)
	wall := time.Since(t0)
	c1, s1, j1 := workload.CPUTime(), m.srv.read(), m.srv.readMain()
	busy1, total1 := machineCPU()
	s := sample{n: n, wall: wall, cpu: c1 - c0, srv: -1, js: -1, sys: -1}
	if s0 >= 0 && s1 >= 0 {
		s.srv = s1 - s0
	}
	if j0 >= 0 && j1 >= 0 {
		s.js = j1 - j0
	}
	if total1 > total0 {
		s.sys = float64(busy1-busy0) / float64(total1-total0)
	}
	return s, err
}

// procCPU reads the CPU time of a group of processes from /proc (Linux).
type procCPU struct {
	pids []int
}

// clockTick is USER_HZ, the unit of utime and stime in /proc/<pid>/stat:
// 100 on every Linux architecture Go supports.
const clockTick = 10 * time.Millisecond

// findAzurite finds the Azurite process listening on port, and every process
// of its process group (azurite.Start gives it its own). nil when /proc is
// missing or the process cannot be found.
func findAzurite(port int) *procCPU {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	want := "--tablePort\x00" + strconv.Itoa(port) + "\x00"
	leader := -1
	type proc struct{ pid, pgrp int }
	var procs []proc
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, err := readStat(pid)
		if err != nil {
			continue
		}
		procs = append(procs, proc{pid, st.pgrp})
		if cmd, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline")); err == nil && strings.Contains(string(cmd)+"\x00", want) {
			leader = st.pgrp
		}
	}
	if leader < 0 {
		return nil
	}
	p := &procCPU{}
	for _, pr := range procs {
		if pr.pgrp == leader {
			p.pids = append(p.pids, pr.pid)
		}
	}
	return p
}

// with is the group of both p's and q's processes; nil when either is
// unknown, so that a sum is never taken for the whole.
func (p *procCPU) with(q *procCPU) *procCPU {
	if p == nil || q == nil {
		return nil
	}
	return &procCPU{pids: append(slices.Clip(p.pids), q.pids...)}
}

// read returns the CPU time used so far by the processes, or -1.
func (p *procCPU) read() time.Duration { return p.sum(statPath) }

// readMain returns the CPU time used so far by the processes' main threads
// (Node.js runs all JavaScript, so every request, on its main thread), or -1.
func (p *procCPU) readMain() time.Duration {
	return p.sum(func(pid int) string {
		id := strconv.Itoa(pid)
		return "/proc/" + id + "/task/" + id + "/stat"
	})
}

func (p *procCPU) sum(path func(pid int) string) time.Duration {
	if p == nil {
		return -1
	}
	var total time.Duration
	for _, pid := range p.pids {
		st, err := readStatFile(path(pid))
		if err != nil {
			continue // exited
		}
		total += st.cpu
	}
	return total
}

type stat struct {
	pgrp int
	cpu  time.Duration
}

func statPath(pid int) string { return "/proc/" + strconv.Itoa(pid) + "/stat" }

func readStat(pid int) (stat, error) { return readStatFile(statPath(pid)) }

func readStatFile(path string) (stat, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return stat{}, err
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return stat{}, fmt.Errorf("bad stat")
	}
	f := strings.Fields(s[i+1:])
	// f[0] is field 3 (state): pgrp is field 5, utime 14, stime 15.
	if len(f) < 13 {
		return stat{}, fmt.Errorf("bad stat")
	}
	pgrp, _ := strconv.Atoi(f[2])
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return stat{pgrp: pgrp, cpu: time.Duration(ut+st) * clockTick}, nil
}

// machineCPU returns the jiffies the machine's CPUs spent busy and in total
// since boot, from /proc/stat (0, 0 when unavailable).
func machineCPU() (busy, total int64) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 5 || f[0] != "cpu" {
		return 0, 0
	}
	for i, v := range f[1:] {
		if i >= 8 { // guest time is already in user time
			break
		}
		n, _ := strconv.ParseInt(v, 10, 64)
		total += n
		if i != 3 && i != 4 { // idle, iowait
			busy += n
		}
	}
	return busy, total
}
