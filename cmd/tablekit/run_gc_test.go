package main

import (
	"runtime/debug"
	"testing"
)

// TestGCSettingApply checks that a command's collector setting is applied
// only when the user has set neither GOGC nor GOMEMLIMIT: a user who set
// one has chosen, and the runtime read it at start.
func TestGCSettingApply(t *testing.T) {
	g := gcSetting{percent: 321, limit: 77 << 20}
	for _, tc := range []struct {
		name          string
		gogc, memlim  string
		wantApplied   bool
		wantGC        int
		wantMemLimitB int64
	}{
		{name: "neither set", wantApplied: true, wantGC: 321, wantMemLimitB: 77 << 20},
		{name: "GOGC set", gogc: "150", wantGC: 100, wantMemLimitB: 1 << 40},
		{name: "GOMEMLIMIT set", memlim: "1GiB", wantGC: 100, wantMemLimitB: 1 << 40},
		{name: "both set", gogc: "off", memlim: "1GiB", wantGC: 100, wantMemLimitB: 1 << 40},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("GOGC", tc.gogc)
			t.Setenv("GOMEMLIMIT", tc.memlim)
			// Known values before, restored after: the test process's own.
			oldGC := debug.SetGCPercent(100)
			oldLim := debug.SetMemoryLimit(1 << 40)
			defer func() {
				debug.SetGCPercent(oldGC)
				debug.SetMemoryLimit(oldLim)
			}()
			if got := g.apply(); got != tc.wantApplied {
				t.Errorf("apply() = %v, want %v", got, tc.wantApplied)
			}
			if got := debug.SetGCPercent(100); got != tc.wantGC {
				t.Errorf("GC percent = %d, want %d", got, tc.wantGC)
			}
			if got := debug.SetMemoryLimit(-1); got != tc.wantMemLimitB {
				t.Errorf("memory limit = %d, want %d", got, tc.wantMemLimitB)
			}
		})
	}
}
