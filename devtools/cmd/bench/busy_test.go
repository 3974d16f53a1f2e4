package main

import (
	"math"
	"strings"
	"testing"
	"time"
)

// synth is a round of n entities in wall time, this process using cpu and
// Azurite srv, with the machine sys busy.
func synth(n int, wall, cpu, srv time.Duration, sys float64) sample {
	return sample{n: n, wall: wall, cpu: cpu, srv: srv, sys: sys}
}

func TestOtherShare(t *testing.T) {
	// 2 cores, 10 s: this process 8 s and Azurite 8 s are 80% of the
	// cores; the machine was 95% busy, so other work took 15%.
	s := synth(1000, 10*time.Second, 8*time.Second, 8*time.Second, 0.95)
	if got := s.otherShare(2); math.Abs(got-0.15) > 1e-9 {
		t.Errorf("otherShare = %v, want 0.15", got)
	}
	// Never negative (counters are read at slightly different times).
	if got := synth(1, time.Second, time.Second, time.Second, 0.9).otherShare(2); got != 0 {
		t.Errorf("otherShare = %v, want 0", got)
	}
	if got := synth(1, time.Second, 0, -1, 0.5).otherShare(2); !math.IsNaN(got) {
		t.Errorf("Azurite unknown: otherShare = %v, want NaN", got)
	}
}

func busyBench(load float64, rounds map[string][]sample) *bench {
	return &bench{cfg: fullConfig(), res: rounds, cores: 2, load1: load}
}

func TestBusyRule(t *testing.T) {
	idle := func(rate float64) []sample {
		var ss []sample
		for range 3 {
			ss = append(ss, synth(int(rate*10), 10*time.Second, 9*time.Second, 9*time.Second, 0.92))
		}
		return ss
	}
	busy := func(rate float64) []sample {
		ss := idle(rate)
		for i := range ss[:2] { // two of three rounds: the median is busy
			ss[i].sys = 1
			ss[i].cpu, ss[i].srv = 6*time.Second, 6*time.Second
		}
		return ss
	}
	for _, tc := range []struct {
		name   string
		load   float64
		num    []sample
		status Status
		why    string
	}{
		{"idle machine, target met", 0.2, idle(3000), Pass, ""},
		{"idle machine, target missed", 0.2, idle(2000), Fail, ""},
		{"other work during the fast scenario", 0.2, busy(2000), NotMeasured, "40% during `scan/tk-par/lat`"},
		{"busy before the run", 1.8, idle(2000), NotMeasured, "load average was 1.80 when the run started (limit 1.50 on 2 cores)"},
		{"load unknown", math.NaN(), idle(3000), Pass, ""},
	} {
		b := busyBench(tc.load, map[string][]sample{"scan/tk-par/lat": tc.num, "scan/plain-seq/lat": idle(1000)})
		tg := b.judge(ratioTarget("x", b.ratio("scan/tk-par/lat", "scan/plain-seq/lat"), 3, false), "scan/tk-par/lat", "scan/plain-seq/lat")
		if tg.Status != tc.status || !strings.Contains(tg.Why, tc.why) {
			t.Errorf("%s: %s %q (%s), want %s with %q", tc.name, tg.Status, tg.Why, tg.Got, tc.status, tc.why)
		}
		if tc.status == NotMeasured && (!strings.HasPrefix(tg.Why, "machine busy") || !strings.Contains(tg.Got, "(not judged)")) {
			t.Errorf("%s: refused target should say so: %q %q", tc.name, tg.Got, tg.Why)
		}
	}
	// A target that was not measured at all stays without a reason.
	b := busyBench(3, map[string][]sample{})
	if tg := b.judge(ratioTarget("x", math.NaN(), 3, false), "a"); tg.Why != "" || tg.Got != "n/a" {
		t.Errorf("unmeasured target: %+v", tg)
	}
}

func TestParseLoad1(t *testing.T) {
	if got := parseLoad1("1.42 1.77 3.17 2/345 6789"); got != 1.42 {
		t.Errorf("parseLoad1 = %v", got)
	}
	if got := parseLoad1("unknown"); !math.IsNaN(got) {
		t.Errorf("parseLoad1(unknown) = %v", got)
	}
}
