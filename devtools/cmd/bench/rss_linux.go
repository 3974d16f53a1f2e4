//go:build linux

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// A child's ru_maxrss is not its own peak when a large process starts it:
// Go starts children with vfork (CLONE_VM), and at exec Linux carries the
// high-water mark of the mm being left, this process's, into the child's
// maxrss. A tablekit started directly by the bench would report the
// bench's own peak resident set whenever that is larger (it is: the bench
// holds the benchmark items and grows while loading the big table). So
// the command runs under a wrapper, this binary re-executed with
// rusageWrapperArg: its mm is fresh and small, so the grandchild's maxrss
// is its own (never below the wrapper's few MiB at the fork), and the
// wrapper writes the grandchild's rusage to descriptor 3.
const rusageWrapperArg = "-rusage-wrapper"

// wrapped returns the command that runs bin with args under the wrapper,
// and the file its rusage line will be in.
func wrapped(ctx context.Context, bin string, args []string) (*exec.Cmd, *os.File, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, nil, err
	}
	f, err := os.CreateTemp("", "tablekit-rusage-")
	if err != nil {
		return nil, nil, err
	}
	_ = os.Remove(f.Name())
	cmd := exec.CommandContext(ctx, self, append([]string{rusageWrapperArg, bin}, args...)...)
	cmd.ExtraFiles = []*os.File{f}
	return cmd, f, nil
}

// childUsage reads the line the wrapper wrote: the command's peak resident
// set in KiB and its user and system CPU in microseconds.
func childUsage(f *os.File) (rssKiB, userUs, sysUs int64, err error) {
	if _, err := f.Seek(0, 0); err != nil {
		return 0, 0, 0, err
	}
	if _, err := fmt.Fscan(f, &rssKiB, &userUs, &sysUs); err != nil {
		return 0, 0, 0, fmt.Errorf("reading the command's rusage: %w", err)
	}
	return rssKiB, userUs, sysUs, nil
}

// runRusageWrapper is the wrapper's whole life: run args, pass the exit
// status on, write the child's rusage to descriptor 3. The child dies with
// the wrapper (a timeout kills the wrapper).
func runRusageWrapper(args []string) int {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		fmt.Fprintln(os.Stderr, "bench rusage wrapper:", err)
		return 1
	}
	ps := cmd.ProcessState
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		fmt.Fprintln(os.Stderr, "bench rusage wrapper: no rusage")
		return 1
	}
	out := os.NewFile(3, "rusage")
	fmt.Fprintf(out, "%d %d %d\n", ru.Maxrss, ps.UserTime().Microseconds(), ps.SystemTime().Microseconds())
	_ = out.Close()
	if code := ps.ExitCode(); code >= 0 {
		return code
	}
	return 1
}
