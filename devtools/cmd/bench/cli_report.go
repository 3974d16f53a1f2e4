package main

import (
	"fmt"
	"math"
)

// rssLimit is how much more the peak RSS of the big copy may be than that
// of the scan-sized one for the claim that it does not grow with the table.
const rssLimit = 1.25

// rss is the median peak RSS of key's runs in KiB; NaN when unknown.
func (b *bench) rss(key string) float64 {
	return b.med(key, func(s sample) float64 {
		if s.rss <= 0 {
			return math.NaN()
		}
		return float64(s.rss)
	})
}

// copyBase is the slower of the library's two halves of a copy: the
// parallel scan and the bulk writer, locally.
func (b *bench) copyBase() (key, name string) {
	if b.rate("insert/tk-bulk/local") < b.rate("scan/tk-par/local") {
		return "insert/tk-bulk/local", "`batch.Write`"
	}
	return "scan/tk-par/local", "the parallel scan"
}

// copyCeiling says what a copy can reach where CPU is throughput: it
// does the scan's work and the write's on the same cores (client and
// Azurite both), so even a copy with no cost of its own runs at the
// slower half's CPU over the sum of both.
func (b *bench) copyCeiling(base string) string {
	scan := b.clientCPU("scan/tk-par/local") + b.serverCPU("scan/tk-par/local")
	write := b.clientCPU("insert/tk-bulk/local") + b.serverCPU("insert/tk-bulk/local")
	half := b.clientCPU(base) + b.serverCPU(base)
	copied := b.clientCPU("cli/copy") + b.serverCPU("cli/copy")
	if math.IsNaN(scan + write + half + copied) {
		return ""
	}
	return fmt.Sprintf("A copy does the scan's work (%s µs per entity, client and Azurite) and the write's (%s µs) on the same cores, so where CPU is throughput even a copy costing nothing of its own reaches %s; this one used %s µs in all.",
		fmtNum(scan), fmtNum(write), fmtRatio(half/(scan+write)), fmtNum(copied))
}

func (b *bench) cliWhy(cliKey, libKey, libName string) func() string {
	return func() string {
		return fmt.Sprintf("the command used %s µs of CPU per entity in its own process (reading or writing JSON Lines included) against %s µs for %s in this process, and Azurite %s against %s µs; the command, this process and Azurite kept %s of the cores busy, the whole machine %s. On a machine where they share %d cores, CPU is throughput.",
			fmtNum(b.clientCPU(cliKey)), fmtNum(b.clientCPU(libKey)), libName,
			fmtNum(b.serverCPU(cliKey)), fmtNum(b.serverCPU(libKey)),
			pct(b.machineBusy(cliKey)), pct(b.sysBusy(cliKey)), b.cores)
	}
}

// cliTargets checks the tablekit command against the library in the same
// run.
func (b *bench) cliTargets() []Target {
	var ts []Target
	rate := func(name, num, den, denName string, want float64) {
		t := b.judge(ratioTarget(name, b.ratio(num, den), want, false), num, den)
		if t.Status == Fail {
			t.Why = b.cliWhy(num, den, denName)()
		}
		ts = append(ts, t)
	}
	par := b.cfg.scanParallel
	rate(fmt.Sprintf("tablekit export to JSON Lines (--parallel %d) vs the library's parallel scan, local", par), "cli/export", "scan/tk-par/local", "the parallel scan", 0.8)
	rate("tablekit import of that file vs `batch.Write`, local", "cli/import", "insert/tk-bulk/local", "`batch.Write`", 0.8)
	key, name := b.copyBase()
	rate(fmt.Sprintf("tablekit copy (--parallel %d) vs the slower of the parallel scan and `batch.Write` (%s), local", par, name), "cli/copy", key, name, 0.8)
	if c := &ts[len(ts)-1]; c.Status == Fail {
		c.Why += " " + b.copyCeiling(key)
	}

	t := Target{
		Name: fmt.Sprintf("tablekit copy: peak RSS of %s entities vs %s", fmtInt(b.cfg.bigCopy), fmtInt(b.cfg.entities)),
		Want: "<= " + fmtRatio(rssLimit),
		Got:  "n/a",
	}
	big, small := b.rss("cli/copy-big"), b.rss("cli/copy")
	if !math.IsNaN(big) && !math.IsNaN(small) {
		t = ratioTarget(t.Name, big/small, rssLimit, true)
		t.Got = fmt.Sprintf("%s (%s against %s)", t.Got, mib(big*1024), mib(small*1024))
		if t.Status == Fail {
			t.Why = fmt.Sprintf("the copy of %s entities peaked at %s of resident memory against %s for %s: memory grew with the table.", fmtInt(b.cfg.bigCopy), mib(big*1024), mib(small*1024), fmtInt(b.cfg.entities))
		}
	}
	return append(ts, t)
}

// cliSection reports the command's runs beside the library's.
func (b *bench) cliSection() Section {
	cfg := b.cfg
	t := Table{
		Caption: "Locally (no added latency); the library rows are the same run's, from the sections above:",
		Header:  []string{"Scenario", "entities per round", "entities/s (median)", "rounds (min-max)", "vs library", "client CPU µs/entity", "Azurite CPU µs/entity", "peak RSS", "machine busy", "other work"},
	}
	copyKey, copyName := b.copyBase()
	for _, r := range []struct{ key, label, base string }{
		{"scan/tk-par/local", fmt.Sprintf("library: parallel segmented query (%d in flight)", cfg.scanParallel), ""},
		{"cli/export", fmt.Sprintf("`tablekit export TABLE -o FILE --parallel %d` (JSON Lines)", cfg.scanParallel), "scan/tk-par/local"},
		{"insert/tk-bulk/local", "library: bulk writer (`batch.Write`, defaults)", ""},
		{"cli/import", "`tablekit import TABLE FILE --create` (the exported file)", "insert/tk-bulk/local"},
		{"cli/copy", fmt.Sprintf("`tablekit copy SRC DST --parallel %d` (vs %s)", cfg.scanParallel, copyName), copyKey},
		{"cli/copy-big", fmt.Sprintf("the same copy of a %s-entity table (1 run)", fmtInt(cfg.bigCopy)), copyKey},
	} {
		ss := b.res[r.key]
		if len(ss) == 0 {
			continue
		}
		lo, hi := spread(ss)
		vs, rss := "", "in this process"
		if r.base != "" {
			vs = fmtRatio(b.ratio(r.key, r.base))
			rss = mib(b.rss(r.key) * 1024)
		}
		t.Rows = append(t.Rows, []string{r.label, fmtInt(ss[0].n), fmtNum(b.rate(r.key)), fmtNum(lo) + "-" + fmtNum(hi), vs,
			fmtNum(b.clientCPU(r.key)), fmtNum(b.serverCPU(r.key)), rss, pct(b.sysBusy(r.key)), pct(b.otherWork(r.key))})
	}
	text := []string{
		fmt.Sprintf("The command is built with `go build ./cmd/tablekit` and run as a subprocess against the same Azurite, with `TABLEKIT_CONNECTION_STRING` set; each round exports the %s-entity scan table to a JSON Lines file, imports that file into a new table and copies the scan table into another new table (both deleted after the round, and counted after the first). Its client CPU and peak RSS are the command's own: a small wrapper process (this program re-executed) starts it and reports its `rusage`, because Linux gives a child started directly by a large process that process's peak resident set as its `ru_maxrss` (the high-water mark of the memory it leaves at exec); measured directly, the command seemed to grow with the table when it was this program that grew. This process only waits. The command's rounds run after the library's, not interleaved with them.", fmtInt(cfg.entities)),
	}
	if big, small := b.rss("cli/copy-big"), b.rss("cli/copy"); !math.IsNaN(big) && !math.IsNaN(small) {
		verdict := "so the command's memory does not grow with the table: it writes rounds of 5,000 entities (or 16 MiB) one after the other"
		if big/small > rssLimit {
			verdict = "so in this run the command's memory grew with the table"
		}
		text = append(text, fmt.Sprintf("Copying %s entities peaked at %s of resident memory, copying %s at %s (median): %s, %s.",
			fmtInt(cfg.bigCopy), mib(big*1024), fmtInt(cfg.entities), mib(small*1024), fmtRatio(big/small), verdict))
	}
	return Section{Title: "The tablekit command", Text: text, Tables: []Table{t}}
}
