package main

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// profileEnv, when set, names a file the binary writes its CPU profile to:
// the command's own cost is measured as a user runs it (a separate
// process, its own GC), which an in-process test cannot show. Hidden: a
// development aid, not an interface.
const profileEnv = "TABLEKIT_CPUPROFILE"

// startProfile starts the CPU profile $TABLEKIT_CPUPROFILE asks for and
// returns what stops it; a profile that cannot start is said on stderr and
// the command runs without one.
func startProfile(e *env) (stop func()) {
	path := e.getenv(profileEnv)
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err == nil {
		if err = pprof.StartCPUProfile(f); err != nil {
			f.Close()
		}
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "tablekit: %s: %v\n", profileEnv, err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}
