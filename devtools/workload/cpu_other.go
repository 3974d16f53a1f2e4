//go:build !unix

package workload

import "time"

// CPUTime is not measured on this platform: it is always 0, and reports
// show no CPU figures.
func CPUTime() time.Duration { return 0 }
