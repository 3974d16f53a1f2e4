package main

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// rateRounds is three idle rounds of key at rate entities/s; cpu and srv
// per entity in µs.
func rateRounds(n int, rate, cpuUs, srvUs float64) []sample {
	wall := time.Duration(float64(n) / rate * float64(time.Second))
	cpu, srv := time.Duration(cpuUs*float64(n)*1e3), time.Duration(srvUs*float64(n)*1e3)
	// The machine is as busy as this process and Azurite, plus 2% of noise.
	sys := min(1, (cpu+srv).Seconds()/wall.Seconds()/2+0.02)
	var ss []sample
	for range 3 {
		ss = append(ss, sample{n: n, wall: wall, cpu: cpu, srv: srv, sys: sys})
	}
	return ss
}

func findTarget(t *testing.T, ts []Target, prefix string) Target {
	t.Helper()
	for _, tg := range ts {
		if strings.HasPrefix(tg.Name, prefix) {
			return tg
		}
	}
	t.Fatalf("no target %q", prefix)
	return Target{}
}

func obs(cpuNs, allocs float64) []overheadObs {
	return []overheadObs{{cpuNs: cpuNs, allocs: allocs}}
}

func synthBench() *bench {
	b := &bench{cfg: fullConfig(), res: map[string][]sample{}, cores: 2, load1: 0.3}
	set := func(key string, n int, rate, cpu, srv float64) { b.res[key] = rateRounds(n, rate, cpu, srv) }
	set("insert/tk-bulk/local", 50_000, 9000, 60, 100)
	set("insert/plain-txn/local", 50_000, 7000, 95, 100)
	for i := range b.res["insert/tk-bulk/local"] {
		b.res["insert/tk-bulk/local"][i].js = b.res["insert/tk-bulk/local"][i].wall * 95 / 100
	}
	set("scan/tk-par/local", 50_000, 16000, 40, 45)
	// The command's rounds measure the library's side again.
	set(cliLibBulk, 50_000, 9000, 60, 100)
	set(cliLibScan, 50_000, 16000, 40, 45)
	set("cli/export", 50_000, 14000, 45, 45)
	set("cli/import", 50_000, 6000, 90, 100)         // 0.67x of 9,000: a miss
	set("cli/copy-accounts", 50_000, 7400, 100, 140) // vs the bulk writer, the slower
	set("cli/copy", 50_000, 5000, 100, 140)
	set("cli/copy-big", 200_000, 7300, 100, 140)
	set(cliLibScanPair, 50_000, 15000, 60, 90)
	set(cliVerify, 50_000, 12500, 70, 90) // 0.83x of the two scans
	set(cliShares, 50_000, 11000, 50, 45) // 0.79x of one export: a miss
	for i := range b.res["cli/copy"] {
		b.res["cli/copy"][i].rss = 40 << 10 // KiB
		b.res["cli/copy-big"][i].rss = 44 << 10
	}
	b.res["heap/scan"] = []sample{{n: 50_000, heapPeak: 20 << 20, heapBase: 1 << 20}, {n: 50_000, heapPeak: 30 << 20, heapBase: 1 << 20}}
	b.res["bytes/tk"] = []sample{{n: 500, bytes: 500 * 369}}
	b.res["bytes/plain"] = []sample{{n: 500, bytes: 500 * 1690, body: 500 * 1287}}
	// Capacity: 20,000 entities with 0.5 s of CPU: 40,000 per core.
	b.res["cap/bulk"] = []sample{{n: 20_000, wall: 2 * time.Second, cpu: 500 * time.Millisecond, srv: -1, sys: -1}}
	// ... and the hand-written loop 2 s: 10,000 per core.
	b.res["cap/plain-txn"] = []sample{{n: 20_000, wall: 3 * time.Second, cpu: 2 * time.Second, srv: -1, sys: -1}}
	return b
}

func TestTargetsOnSyntheticResults(t *testing.T) {
	b := synthBench()
	over := map[string][]overheadObs{
		"page/query": obs(8_000, 40), "page/pager-struct": obs(90_000, 135),
		"write/typed": obs(50_000, 150), "write/prebuilt": obs(61_000, 222), "write/floor": obs(30_000, 72),
		"tx/typed": obs(34_000, 72), "tx/prebuilt": obs(60_000, 204),
		"encode/raw": obs(2_000, 3), "encode/typed": obs(1_000, 2),
	}
	b.res[cliStart] = []sample{{n: 1000, cpu: 300 * time.Microsecond}}
	ts := b.targets(over)
	for _, tc := range []struct {
		prefix, got string
		status      Status
	}{
		{"bulk writer vs hand-written SubmitTransaction", "1.29x", Pass},
		{"bulk writer vs the ceiling of Azurite's one thread", "0.95x", Pass},
		{"client CPU: typed 1,000-entity page read", "0.09x", Pass},
		{"client CPU: typed insert vs aztables AddEntity with pre-built", "0.82x", Fail},
		{"client CPU: 100-operation transaction submit", "0.57x", Fail},
		{"tablekit export", "0.88x", Pass},
		// 45 against 40 µs per entity (1.125, printed to even), 90 against 60.
		{"client CPU per entity: tablekit export", "1.12x", Pass},
		{"client CPU per entity: tablekit import", "1.50x", Fail},
		// 40,000 entities per core against 10,000.
		{"client capacity: bulk writer per client core", "4.00x", Fail},
		{"client capacity: parallel scan per client core", "n/a", NotMeasured},
		{"tablekit import", "0.67x", Fail},
		// 7,400/s against 1 / (1/16,000 + 1/9,000) = 5,760/s.
		{"tablekit copy to another account (--parallel 16) vs the serial bound", "1.28x", Pass},
		{"tablekit verify of two tables", "0.83x", Pass},
		{"tablekit export on 2 shares of a plan, 2 processes at once (--parallel 8 each)", "0.79x", Fail},
		{"tablekit copy: peak RSS of 200,000 entities vs 50,000", "1.10x (44 MiB against 40 MiB)", Pass},
		{"parallel scan of 50,000 entities, 16 in flight: peak Go heap", "30 MiB (1 MiB live before the scan)", Pass},
		{"response body bytes per tablekit insert", "0 (plain AddEntity: 1,287)", Pass},
	} {
		tg := findTarget(t, ts, tc.prefix)
		if tg.Got != tc.got || tg.Status != tc.status {
			t.Errorf("%s: %s %s, want %s %s", tc.prefix, tg.Got, tg.Status, tc.got, tc.status)
		}
		if tg.Status == Fail && tg.Why == "" {
			t.Errorf("%s: a miss without a reason", tc.prefix)
		}
	}
	for _, tg := range ts {
		if strings.Contains(tg.Name, "all bytes") {
			t.Errorf("retired target still reported: %s", tg.Name)
		}
	}
	// The insert's miss shows the floor of azcore's pipeline measured in
	// the same run: 30 of tablekit's 50 µs; above it, 20 against 31.
	if why := findTarget(t, ts, "client CPU: typed insert").Why; !strings.Contains(why, "30,000 ns: 60% of tablekit's insert") || !strings.Contains(why, "costs 20,000 ns against 31,000 ns for aztables' (0.65x)") {
		t.Errorf("insert miss should show the floor: %s", why)
	}
	if why := findTarget(t, ts, "tablekit import").Why; !strings.Contains(why, "90 µs of CPU") || !strings.Contains(why, "against 60 µs") {
		t.Errorf("import miss should compare CPU per entity: %s", why)
	}
	// Its CPU miss shows the steps measured apart: the start, 300 µs over
	// 1,000 entities, and the raw encode against the typed one.
	if why := findTarget(t, ts, "client CPU per entity: tablekit import").Why; !strings.Contains(why, "start alone (`tablekit export --help`) 0.30 µs per entity") || !strings.Contains(why, "checked: 2 µs against 1 µs typed (`encode/raw`, `encode/typed`)") {
		t.Errorf("import CPU miss should show the steps measured apart: %s", why)
	}

	// The copy within one account is reported with its ceiling there:
	// Azurite's 100 µs for the write over its 45 for the scan and the
	// write's.
	if text := strings.Join(b.cliSection().Text, " "); !strings.Contains(text, "at about 0.69x of `batch.Write` (this one: 0.56x, with Azurite at 140 µs") {
		t.Errorf("the section should state the one-account ceiling: %s", text)
	}
	// The command is judged against the library's runs in its own rounds,
	// not the sections' above.
	origLib := b.res[cliLibBulk]
	b.res[cliLibBulk] = rateRounds(50_000, 7500, 60, 100)
	if tg := findTarget(t, b.cliTargets(nil), "tablekit import"); tg.Got != "0.80x" {
		t.Errorf("import against the rounds' own batch.Write (7,500/s): %s, want 0.80x", tg.Got)
	}
	b.res[cliLibBulk] = origLib
	// A miss of the copy between accounts says where the CPU went.
	orig := b.res["cli/copy-accounts"]
	b.res["cli/copy-accounts"] = rateRounds(50_000, 5000, 100, 140)
	if why := findTarget(t, b.cliTargets(nil), "tablekit copy to another").Why; !strings.Contains(why, "100 µs of CPU per entity") {
		t.Errorf("copy miss should compare CPU per entity: %s", why)
	}
	b.res["cli/copy-accounts"] = orig

	// The peak heap over the limit fails, with the highest round.
	b.res["heap/scan"] = append(b.res["heap/scan"], sample{n: 50_000, heapPeak: 40 << 20, heapBase: 2 << 20})
	if tg := b.heapTarget(); tg.Status != Fail || !strings.HasPrefix(tg.Got, "40 MiB") || tg.Why == "" {
		t.Errorf("heap over the limit: %+v", tg)
	}
	// RSS growing with the table fails, and the section says so.
	for i := range b.res["cli/copy-big"] {
		b.res["cli/copy-big"][i].rss = 160 << 10
	}
	if tg := findTarget(t, b.cliTargets(nil), "tablekit copy: peak RSS"); tg.Status != Fail {
		t.Errorf("RSS 4x: %+v", tg)
	}
	if text := strings.Join(b.cliSection().Text, " "); !strings.Contains(text, "memory grew with the table") {
		t.Errorf("section should not claim flat memory: %s", text)
	}
}

func TestCapacity(t *testing.T) {
	b := synthBench()
	if got := b.perCore("cap/bulk"); got != 40_000 {
		t.Errorf("perCore = %v, want 40,000", got)
	}
	sec := b.capacitySection()
	rows := sec.Tables[0].Rows
	if len(rows) != 2 {
		t.Fatalf("capacity rows = %q, want the bulk writer and the loop (the scans were not measured)", rows)
	}
	// 20,000 entities/s at 40,000 per core: half a core, 4 times the loop's
	// 10,000 per core; the loop is the baseline, with no ratio of its own.
	for i, want := range [][]string{{"40,000", "4.00x", "0.50"}, {"10,000", "", "2"}} {
		if got := rows[i][4:7]; !slices.Equal(got, want) {
			t.Errorf("row %d per core, vs hand-written, cores = %q, want %q", i, got, want)
		}
	}
	// A failed bulk target says what the comparison gives without Azurite.
	b.res["insert/tk-bulk/local"] = rateRounds(50_000, 7000, 60, 100) // 1.00x
	why := findTarget(t, b.targets(nil), "bulk writer vs hand-written SubmitTransaction loop, local").Why
	if !strings.Contains(why, "carried 4.00x the entities per second") {
		t.Errorf("bulk target's why = %q, want the capacity ratio", why)
	}
}

func TestCLISectionFlatMemory(t *testing.T) {
	b := synthBench()
	text := strings.Join(b.cliSection().Text, " ")
	if !strings.Contains(text, "does not grow with the table") || !strings.Contains(text, "1.10x") {
		t.Errorf("section text: %s", text)
	}
	if n := len(b.cliSection().Tables[0].Rows); n != 10 {
		t.Errorf("%d rows, want 10", n)
	}
}
