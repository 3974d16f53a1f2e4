//go:build unix

package main

import (
	"os"
	"syscall"
)

// maxRSS is the peak resident set of an exited child in KiB (Linux's unit
// of ru_maxrss), -1 when unknown.
func maxRSS(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return int64(ru.Maxrss)
	}
	return -1
}
