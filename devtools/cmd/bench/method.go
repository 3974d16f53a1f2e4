package main

import (
	"fmt"

	"github.com/tablekit/tablekit/devtools/workload"
)

// method is "How the numbers were taken": one bullet per point.
func (b *bench) method() []string {
	cfg := b.cfg
	return []string{
		fmt.Sprintf("Each scenario runs %s, interleaved (round 1 of every scenario, then round 2, ...), so drift on a shared machine hits all alike. Tables show the median rate and the spread; ratios are medians over medians of the same run.", plural(cfg.rounds, "round")),
		fmt.Sprintf("The entity is an order with 10 properties of every common EDM type (strings, Int32, Double, Int64, Boolean, DateTime, Guid), about 1.1 KB of JSON, spread round robin over %d partitions (`devtools/workload`).", workload.Partitions),
		"Plain aztables code encodes entities the usual hand-written way (a map with `@odata.type` annotations and encoding/json), uses `aztables.NewClientWithSharedKey` with nil options (azcore's default transport and retry), and decodes reads with encoding/json into a struct. tablekit code uses `table.New`, `query` and `batch` with default options.",
		"**Machine busy** is the share of all cores busy during the run, every process counted (`/proc/stat`): when it is near 100% while this process and Azurite use much less, other work on the machine was taking the CPU.",
		"**Client CPU** is this process's user+system CPU time (`getrusage(RUSAGE_SELF)`, all threads, garbage collector included) around each timed run, per entity. **Azurite runs in another process, so its CPU is not in that figure;** it is read separately from `/proc/<pid>/stat` of Azurite's process group (10 ms resolution) and shown in its own column.",
		fmt.Sprintf("Latency is added by tablekit's fault/latency proxy (`devtools/faults`), which runs inside the benchmark process and delays every request by %s or %s before forwarding it to Azurite: a client in another region. Its CPU is therefore counted in the client CPU of those rows.", fmtDur(cfg.latency), fmtDur(cfg.latencyHigh)),
		fmt.Sprintf("Sequential single inserts are slow (%s/s locally and %s/s at %s in this run), so the plain `AddEntity` baselines write a fixed smaller sample of the same data: %s entities sequentially and %s with %d goroutines locally, %s and %s at %s. They report entities/s like the others; every other insert scenario writes all %s entities. Every insert round writes into a new table, which is counted after the first round (so that no scenario is fast by losing writes) and then deleted.",
			fmtNum(b.rate("insert/plain-seq/local")), fmtNum(b.rate("insert/plain-seq/lat")), fmtDur(cfg.latency),
			fmtInt(cfg.seqSample), fmtInt(cfg.parSample), cfg.parWorkers, fmtInt(cfg.seqSampleLat), fmtInt(cfg.parSampleLat), fmtDur(cfg.latency), fmtInt(cfg.entities)),
		fmt.Sprintf("**The busy rule.** A rate taken while other work has the cores says nothing about tablekit, so no throughput or latency target (every target comparing entities/s, the command's included) is judged on it: it is reported as **not measured**, with the load seen, when the 1-minute load average at the start of the run exceeded %.2f per core (%.2f on %d cores), or when in the median round of either scenario compared **other work** took more than %s of all cores. Other work is the machine's busy share minus the CPU this process, the tablekit command it runs and Azurite used over the round's wall time (the column of that name). Client-CPU, byte, connection and memory targets are counted per entity or per run and are judged regardless.",
			maxLoadPerCore, maxLoadPerCore*float64(b.cores), b.cores, pct(maxOtherShare)),
		fmt.Sprintf("**Peak heap** of the parallel scan (%s entities, one segment per partition, %d in flight, tablekit defaults) is measured in a child process, this program run again, so that nothing this process holds (the source items of the inserts, the proxy) counts: after a GC, a goroutine reads `/memory/classes/heap/objects:bytes` (`runtime/metrics`: live objects and garbage not yet swept) every 2 ms during the scan. %s; the target uses the highest peak.",
			fmtInt(cfg.entities), cfg.scanParallel, plural(cfg.rounds, "run")),
		fmt.Sprintf("**Client capacity** uses the in-process service of `devtools/workload` behind %s of latency instead of Azurite, so all the CPU counted is the client's. The bulk writer writes %s entities per round (with 20,000, about 0.1 s of its CPU, one round's figure varied by half); the scan reads %d segments of a 1,000-entity page.",
			fmtDur(cfg.latency), fmtInt(cfg.capBulk), cfg.capSegments),
		fmt.Sprintf("**The tablekit command** runs as a built binary in a subprocess. Export, import and copy each run %s on the %s-entity table, the export and the import %s per round, each time after the library's run it is compared with (the parallel scan, `batch.Write`; each pair a ratio, the target their median); the copy runs within the account and to a second account, served by a second Azurite started for it (its CPU counted as Azurite's), and its target is judged on the latter: within one account a single-threaded Azurite serves both tables, as no service does. The peak-RSS copy of %s entities runs once, within the account, from a table loaded for it (untimed) and deleted after. verify compares the table with its copy in the second account, against the library's parallel scans of the two run side by side in the same round; %d export processes read the %d shares of one plan at once, against one export with all the parallelism.",
			plural(cfg.rounds, "round"), fmtInt(cfg.entities), plural(cfg.cliPairs, "time"), fmtInt(cfg.bigCopy), shareProcs, shareProcs),
	}
}
