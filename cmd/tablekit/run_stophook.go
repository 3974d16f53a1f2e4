package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// stopEnv is the tests' hook, hidden from --help: TABLEKIT_TEST_STOP=int:N
// or kill:N makes a checkpointed run stop itself as its work moves on after
// its Nth checkpoint save (N = 0: at its first step), by SIGINT as Ctrl-C
// would or by SIGKILL as a crash would. A test of a resume then interrupts
// the run at a known point, however fast the machine, instead of after a
// delay the run may finish within. backup and backups --keep count each
// file they store as a save (backupdest.go's hookStore).
const stopEnv = "TABLEKIT_TEST_STOP"

// roundOpsEnv is the other hook of tests, hidden too:
// TABLEKIT_TEST_ROUND_OPS=N cuts import's and copy's rounds at N entities
// instead of roundOps, so that a test's few thousand entities make several
// rounds, with checkpoints between them to stop after.
const roundOpsEnv = "TABLEKIT_TEST_ROUND_OPS"

func testRoundOps(v string) (int, error) {
	if v == "" {
		return roundOps, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, usagef("%s=%q: want a number of entities, 1 or more", roundOpsEnv, v)
	}
	return n, nil
}

// stopHook is a run's TABLEKIT_TEST_STOP; nil when unset, and then its
// methods do nothing.
type stopHook struct {
	kill  bool
	after int // saves before the hook is armed
	// ctx, when set, is the run's: the step that sends SIGINT waits for
	// the run to see it, so that the run cannot finish its round (and save
	// it) while the signal is on its way.
	ctx context.Context

	mu    sync.Mutex
	saves int
	fired bool
}

// parseStopHook reads TABLEKIT_TEST_STOP's value; "" is no hook.
func parseStopHook(v string) (*stopHook, error) {
	if v == "" {
		return nil, nil
	}
	how, n, ok := strings.Cut(v, ":")
	after, err := strconv.Atoi(n)
	if !ok || err != nil || after < 0 || how != "int" && how != "kill" {
		return nil, usagef("%s=%q: want int:N or kill:N, N >= 0 checkpoint saves", stopEnv, v)
	}
	return &stopHook{kill: how == "kill", after: after}, nil
}

// saved counts a checkpoint save.
func (h *stopHook) saved() {
	if h == nil {
		return
	}
	h.mu.Lock()
	h.saves++
	h.mu.Unlock()
}

// progressed is called as the run's work moves on (an entity read or
// compared, a transaction committed, a round written): once the saves are
// counted, the first call stops the process.
func (h *stopHook) progressed() {
	if h == nil {
		return
	}
	h.mu.Lock()
	fire := !h.fired && h.saves >= h.after
	h.fired = h.fired || fire
	h.mu.Unlock()
	if !fire {
		return
	}
	p, err := os.FindProcess(os.Getpid())
	switch {
	case err != nil:
	case h.kill:
		if err = p.Kill(); err == nil {
			select {} // a killed process does not go on
		}
	default:
		if err = p.Signal(os.Interrupt); err == nil && h.ctx != nil {
			select {
			case <-h.ctx.Done():
			case <-time.After(10 * time.Second):
			}
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "tablekit: %s: %v\n", stopEnv, err)
	}
}
