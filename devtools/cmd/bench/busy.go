package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The busy rule. A rate measured while other work takes the machine's
// cores says nothing about tablekit, so no throughput or latency target is
// judged on it: such a target is reported as not measured, with the load
// seen. A target is refused when either
//
//   - the 1-minute load average when the run started exceeded
//     maxLoadPerCore per core (1.5 on 2 cores): the machine was busy before
//     the bench began, or
//   - in the median round of any scenario the target compares, other work
//     kept more than maxOtherShare of all cores busy. Other work is the
//     machine's busy share (/proc/stat, every process) minus what this
//     process, the tablekit command it runs (if any) and Azurite used
//     (their CPU time over the round's wall time, per core).
const (
	maxLoadPerCore = 0.75
	maxOtherShare  = 0.15
)

// otherShare is the share of all cores that processes other than this one,
// its tablekit subprocess and Azurite kept busy during s; NaN when unknown.
func (s sample) otherShare(cores int) float64 {
	if s.sys < 0 || s.srv < 0 || s.wall <= 0 || cores <= 0 {
		return math.NaN()
	}
	own := (s.cpu + s.srv).Seconds() / s.wall.Seconds() / float64(cores)
	return math.Max(0, s.sys-own)
}

// otherWork is the median share of the cores other work took during key's
// rounds.
func (b *bench) otherWork(key string) float64 {
	return b.med(key, func(s sample) float64 { return s.otherShare(b.cores) })
}

// busyReason returns why a target comparing keys cannot be judged under the
// busy rule, "" when it can.
func (b *bench) busyReason(keys ...string) string {
	if b.cores > 0 && b.load1 > maxLoadPerCore*float64(b.cores) {
		return fmt.Sprintf("machine busy: the 1-minute load average was %.2f when the run started (limit %.2f on %d cores), so no rate of this run is judged.",
			b.load1, maxLoadPerCore*float64(b.cores), b.cores)
	}
	var seen []string
	for _, k := range keys {
		if o := b.otherWork(k); o > maxOtherShare {
			seen = append(seen, fmt.Sprintf("%s during `%s`", pct(o), k))
		}
	}
	if len(seen) == 0 {
		return ""
	}
	return fmt.Sprintf("machine busy: other work kept %s of the cores busy (median round; limit %s), so the rate says nothing about tablekit.",
		strings.Join(seen, " and "), pct(maxOtherShare))
}

// judge applies the busy rule to a target comparing the rates of keys: a
// measured target becomes not measured, with the load seen.
func (b *bench) judge(t Target, keys ...string) Target {
	if t.Status == NotMeasured {
		return t
	}
	if why := b.busyReason(keys...); why != "" {
		t.Status = NotMeasured
		t.Got += " (not judged)"
		t.Why = why
	}
	return t
}

// parseLoad1 reads the 1-minute figure of a /proc/loadavg line; NaN when
// unknown.
func parseLoad1(s string) float64 {
	f := strings.Fields(s)
	if len(f) == 0 {
		return math.NaN()
	}
	x, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return math.NaN()
	}
	return x
}
