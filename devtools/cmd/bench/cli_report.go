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
// parallel scan and the bulk writer, in the command's rounds.
func (b *bench) copyBase() (key, name string) {
	if b.rate(cliLibBulk) < b.rate(cliLibScan) {
		return cliLibBulk, "`batch.Write`"
	}
	return cliLibScan, "the parallel scan"
}

// copyCeiling says what bounds a copy within one account here: one
// Azurite process, single-threaded, serves both tables and does the
// scan's work and the write's one after the other, so even a copy with no
// cost of its own runs at the slower half's Azurite CPU over the sum of
// both halves', as far as Azurite spends on the copy what it spent on
// each half (its cost per entity drifts between rounds).
func (b *bench) copyCeiling(base string) string {
	scan, write := b.serverCPU(cliLibScan), b.serverCPU(cliLibBulk)
	half, copied := b.serverCPU(base), b.serverCPU("cli/copy")
	if math.IsNaN(scan + write + half + copied) {
		return ""
	}
	return fmt.Sprintf("Within one account a single Azurite process, one thread, serves both tables and does a copy's reads and writes one after the other: it spent %s µs per entity on the scan's requests and %s µs on the write's, which bounds a copy there, even one costing nothing of its own, at about %s of %s (this one: %s, with Azurite at %s µs per entity; Azurite's cost per entity drifts from round to round). The service, and this bench's second account, serve the two tables from different servers, which is where a copy can run at its slower half's rate; the target is measured there.",
		fmtNum(scan), fmtNum(write), fmtRatio(half/(scan+write)), b.copyBaseName(), fmtRatio(b.ratio("cli/copy", base)), fmtNum(copied))
}

// serialBound is the rate of a copy that scans and writes one after the
// other at the library's rates of the same rounds: 1 / (1/scan + 1/write).
func (b *bench) serialBound() float64 {
	return 1 / (1/b.rate(cliLibScan) + 1/b.rate(cliLibBulk))
}

func (b *bench) copyBaseName() string {
	_, name := b.copyBase()
	return name
}

func (b *bench) cliWhy(cliKey, libKey, libName string) func() string {
	return func() string {
		return fmt.Sprintf("the command used %s µs of CPU per entity in its own process (reading or writing JSON Lines included) against %s µs for %s, and Azurite %s against %s µs; the command, this process and Azurite kept %s of the cores busy, the whole machine %s. On a machine where they share %d cores, CPU is throughput.",
			fmtNum(b.clientCPU(cliKey)), fmtNum(b.clientCPU(libKey)), libName,
			fmtNum(b.serverCPU(cliKey)), fmtNum(b.serverCPU(libKey)),
			pct(b.machineBusy(cliKey)), pct(b.sysBusy(cliKey)), b.cores)
	}
}

// cliTargets checks the tablekit command against the library in the same
// run.
func (b *bench) cliTargets(over map[string][]overheadObs) []Target {
	var ts []Target
	rate := func(name, num, den, denName string, want float64) {
		t := b.judge(ratioTarget(name, b.ratio(num, den), want, false), num, den)
		if t.Status == Fail {
			t.Why = b.cliWhy(num, den, denName)()
		}
		ts = append(ts, t)
	}
	par := b.cfg.scanParallel
	rate(fmt.Sprintf("tablekit export to JSON Lines (--parallel %d) vs the library's parallel scan, local", par), "cli/export", cliLibScan, "the parallel scan in a process of its own", 0.8)
	rate("tablekit import of that file vs `batch.Write`, local", "cli/import", cliLibBulk, "`batch.Write` in this process", 0.8)
	rate(fmt.Sprintf("tablekit verify of two tables, the target in another account (--parallel %d) vs two parallel scans side by side, local", par), cliVerify, cliLibScanPair, "the two scans in this process", 0.8)
	rate(fmt.Sprintf("tablekit export on %d shares of a plan, %d processes at once (--parallel %d each) vs one process (--parallel %d), local", shareProcs, shareProcs, max(1, par/shareProcs), par), cliShares, "cli/export", "the one-process export", 0.8)
	// A copy does a scan's work and a write's: on two shared cores it is
	// judged against both done one after the other in the same rounds.
	bound := b.serialBound()
	t := b.judge(ratioTarget(fmt.Sprintf("tablekit copy to another account (--parallel %d) vs the serial bound 1 / (1/scan rate + 1/write rate) of the library's runs, local", par), b.rate("cli/copy-accounts")/bound, 1.0, false), "cli/copy-accounts", cliLibScan, cliLibBulk)
	if t.Status == Fail {
		t.Why = b.cliWhy("cli/copy-accounts", cliLibBulk, "`batch.Write` in this process")()
	}
	ts = append(ts, t)

	// The command's own CPU per entity against the library's doing the
	// same work (the scan in a process of its own, as the command's):
	// counted per entity, judged regardless of the machine's load.
	for _, c := range []struct {
		name, key, lib, libName string
		raw, typed, step, rest  string // the overhead benchmarks of the raw step the command adds, what else it adds
	}{
		{"client CPU per entity: tablekit export (JSON Lines) vs the library's parallel scan", "cli/export", cliLibScan, "the parallel scan in a process of its own",
			"decode/raw", "decode/typed", "decoding an entity as the raw entity export reads", "building each line from properties the scan decoded a read-ahead before, out of cache by then, the kernel's writing of the file, and finding the table's key ranges (a dozen keys-only queries, where the scan is handed the partitions)"},
		{"client CPU per entity: tablekit import vs `batch.Write`", "cli/import", cliLibBulk, "`batch.Write` in this process",
			"encode/raw", "encode/typed", "encoding an entity as the raw entity import writes, each value checked", "reading the file and cutting its lines"},
	} {
		t := ratioTarget(c.name, b.pairedCPU(c.key, c.lib), 1.15, true)
		if t.Status == Fail {
			t.Why = fmt.Sprintf("the command used %s µs of CPU per entity in its own process, start-up, flag checks and the file's reading or writing included, against %s µs for %s (medians; the ratio is the median of each pair's, the two run one after the other).",
				fmtNum(b.clientCPU(c.key)), fmtNum(b.clientCPU(c.lib)), c.libName)
			t.Why += b.cliSteps(over, c.raw, c.typed, c.step, c.rest)
		}
		ts = append(ts, t)
	}

	t = Target{
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

// cliSteps says what of a command's CPU per entity above the library's
// this run measured apart: its start, and its raw step (raw) against the
// typed one the library does (typed), from the client-overhead
// benchmarks; "" when neither was measured.
func (b *bench) cliSteps(over map[string][]overheadObs, raw, typed, step, rest string) string {
	start := b.clientCPU(cliStart)
	r, t := overCPU(over, raw)/1000, overCPU(over, typed)/1000
	if math.IsNaN(start) && (math.IsNaN(r) || math.IsNaN(t)) {
		return ""
	}
	out := " Measured apart in this run:"
	if !math.IsNaN(start) {
		out += fmt.Sprintf(" the command's start alone (`tablekit export --help`) %s µs per entity;", fmtNum(start))
	}
	if !math.IsNaN(r) && !math.IsNaN(t) {
		out += fmt.Sprintf(" %s: %s µs against %s µs typed (`%s`, `%s`);", step, fmtNum(r), fmtNum(t), raw, typed)
	}
	return out + " the rest is " + rest + " (docs/performance.md, The command's own cost)."
}

// cliSection reports the command's runs beside the library's.
func (b *bench) cliSection() Section {
	cfg := b.cfg
	t := Table{
		Caption: "Locally (no added latency); the library rows are measured in the same rounds as the command's:",
		Header:  []string{"Scenario", "entities per round", "entities/s (median)", "rounds (min-max)", "vs library", "client CPU µs/entity", "Azurite CPU µs/entity", "peak RSS", "machine busy", "other work"},
	}
	copyKey, copyName := b.copyBase()
	for _, r := range []struct{ key, label, base string }{
		{cliLibScan, fmt.Sprintf("library: parallel segmented query (%d in flight)", cfg.scanParallel), ""},
		{"cli/export", fmt.Sprintf("`tablekit export TABLE -o FILE --parallel %d` (JSON Lines)", cfg.scanParallel), cliLibScan},
		{cliLibBulk, "library: bulk writer (`batch.Write`, defaults)", ""},
		{"cli/import", "`tablekit import TABLE FILE --create` (the exported file)", cliLibBulk},
		{"cli/copy-accounts", fmt.Sprintf("`tablekit copy SRC DST --parallel %d` to another account, its own Azurite (vs %s, information: judged against the serial bound, see above)", cfg.scanParallel, copyName), copyKey},
		{"cli/copy", fmt.Sprintf("the same copy within the account (vs %s)", copyName), copyKey},
		{"cli/copy-big", fmt.Sprintf("the copy within the account of a %s-entity table (1 run)", fmtInt(cfg.bigCopy)), copyKey},
		{cliLibScanPair, fmt.Sprintf("library: two parallel scans side by side, the table here and its copy in the other account (%d in flight each)", cfg.scanParallel), ""},
		{cliVerify, fmt.Sprintf("`tablekit verify SRC DST --parallel %d`, DST the copy in the other account (vs the two scans)", cfg.scanParallel), cliLibScanPair},
		{cliShares, fmt.Sprintf("`tablekit export --plan P --segment i/%d --parallel %d`, %d processes at once (vs the one-process export)", shareProcs, max(1, cfg.scanParallel/shareProcs), shareProcs), "cli/export"},
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
		fmt.Sprintf("The command is built with `go build ./cmd/tablekit` and run as a subprocess against the same Azurite, with `TABLEKIT_CONNECTION_STRING` set; each round exports the %s-entity scan table to a JSON Lines file, imports that file into a new table, copies the scan table into another new table of the same account, and into a new table of a second account (`TABLEKIT_TARGET_CONNECTION_STRING`), served by a second Azurite started for it whose CPU is counted as Azurite's (every new table deleted after the round, and counted after the first). Its client CPU and peak RSS are the command's own: a small wrapper process (this program re-executed) starts it and reports its `rusage`, because Linux gives a child started directly by a large process that process's peak resident set as its `ru_maxrss` (the high-water mark of the memory it leaves at exec); measured directly, the command seemed to grow with the table when it was this program that grew. This process only waits while the command runs. Each round runs the library's side of each comparison just before the command's: the parallel scan of the scan table before the export, `batch.Write` of the same entities into a new table before the import, so that both sides meet the same Azurite and the machine as it was at that moment: on a shared machine the CPU an entity costs drifts over a run, by as much as the margins judged here. The client-CPU targets take the median of each pair's ratio: the export and its scan, and the import and its write, each run %d times a round. The scan runs in a process of its own (this program run again), as the command runs in one: in this process, which holds the benchmark's 50,000 items, the garbage collector runs far less often than in any program that just scans. The scan's CPU is counted from before it connects to its end (this program's start, with more packages than the command's, left out), while the command's includes its start; it runs with the collector setting `tablekit export` gives itself (GOGC=400, GOMEMLIMIT=64MiB), so that the two collect alike and the comparison is of their code.", fmtInt(cfg.entities), cfg.cliPairs),
	}
	if bound := b.serialBound(); len(b.res["cli/copy-accounts"]) > 0 && !math.IsNaN(bound) {
		text = append(text, fmt.Sprintf("A copy reads every entity and writes it: on this machine's %d cores, shared by the command and both Azurites, the scan's work and the write's compete for the same CPU, so the copy is judged against doing them one after the other at the library's rates of the same rounds, 1 / (1/%s + 1/%s) = %s entities/s: the copy to another account reached %s of it. Against the slower half alone (%s, wanted 0.80x when the target was stated without this machine's cores) it reached %s, kept as information.",
			b.cores, fmtNum(b.rate(cliLibScan)), fmtNum(b.rate(cliLibBulk)), fmtNum(bound), fmtRatio(b.rate("cli/copy-accounts")/bound), b.copyBaseName(), fmtRatio(b.ratio("cli/copy-accounts", copyKey))))
	}
	if ss := b.res[cliStart]; len(ss) > 0 {
		text = append(text, fmt.Sprintf("The command's start alone, `tablekit export --help` (a process that starts, sets up export's flags and exits), used %s ms of CPU (median of %d runs): %s µs per entity of a round, counted in each of the command's rows and in none of the library's.",
			fmtNum(b.med(cliStart, func(s sample) float64 { return float64(s.cpu.Microseconds()) / 1000 })), len(ss), fmtNum(b.clientCPU(cliStart))))
	}
	if len(b.res[cliVerify]) > 0 {
		text = append(text, fmt.Sprintf("verify compares the table and its copy in the other account segment by segment, up to --parallel segments at once, each segment's two scans merged by key; it is compared with the library's parallel scans of the same two tables run side by side in the same round. The %d share processes read a plan made once before the rounds (untimed), each with %d requests in flight, against one export with %d.",
			shareProcs, max(1, cfg.scanParallel/shareProcs), cfg.scanParallel))
	}
	if key, _ := b.copyBase(); len(b.res["cli/copy"]) > 0 {
		if c := b.copyCeiling(key); c != "" {
			text = append(text, c)
		}
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
