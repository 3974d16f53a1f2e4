//go:build unix

package workload

import (
	"syscall"
	"time"
)

// CPUTime is the CPU time this process has used so far, user and system,
// on all its threads (the garbage collector's included). It does not count
// other processes, such as the emulator.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
