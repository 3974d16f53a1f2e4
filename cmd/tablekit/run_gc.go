package main

import (
	"os"
	"runtime/debug"
)

// gcSetting is the garbage collector's setting for a command whose memory
// is bounded however large the table. What such a command holds live is
// small (the scan's read-ahead, a round of writes), so the default
// collector (GOGC 100) runs dozens of times a run for little: letting the
// heap grow further between collections takes CPU off, and a soft memory
// limit keeps the peak from drifting up with the number of collections a
// long run goes through. The limit only steers the collector: a run that
// needs more gets it.
type gcSetting struct {
	percent int   // GOGC: the heap grows to 1+percent/100 times what is live
	limit   int64 // GOMEMLIMIT, in bytes
}

// The settings measured with 50,000 benchmark entities against Azurite
// (docs/performance.md "The command's own cost" has the figures).
var (
	// gcExport is export's (and plan's shares of it) and backup's: what
	// is live is the scan's read-ahead (and a backup's few compressed
	// chunks), a few MiB; GOGC 400 collects half as often as
	// 200 for about 15% less CPU, peak RSS 35-45 MiB to 40-55.
	gcExport = gcSetting{percent: 400, limit: 64 << 20}
	// gcWrite is copy's: two rounds of writes are live, tens of MiB.
	// Import, whose rounds also hold their lines, keeps Go's default: at
	// GOGC 400 its peak RSS doubled (95 to 170-190 MiB) for no CPU.
	gcWrite = gcSetting{percent: 200, limit: 64 << 20}
	// gcVerify is verify's: it reads two scans, and a side in no key order
	// (Cosmos DB, a file, a backup) is sorted in up to oneSort's 64 MiB,
	// so its limit leaves room above that; GOGC 200 takes 10-15% off
	// against the default, 400 little more for twice the peak RSS.
	gcVerify = gcSetting{percent: 200, limit: 128 << 20}
)

// apply sets g unless the environment sets GOGC or GOMEMLIMIT: a user who
// chose either has chosen how the collector runs, and the runtime has
// read both already. It says whether it applied g.
func (g gcSetting) apply() bool {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return false
	}
	debug.SetGCPercent(g.percent)
	debug.SetMemoryLimit(g.limit)
	return true
}
