//go:build !linux

package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
)

// rusageWrapperArg is never given off Linux: the command runs directly and
// its peak resident set is unknown.
const rusageWrapperArg = "-rusage-wrapper"

func wrapped(ctx context.Context, bin string, args []string) (*exec.Cmd, *os.File, error) {
	return exec.CommandContext(ctx, bin, args...), nil, nil
}

func childUsage(*os.File) (rssKiB, userUs, sysUs int64, err error) {
	return -1, 0, 0, errors.New("no rusage off Linux")
}

func runRusageWrapper([]string) int { return 1 }
