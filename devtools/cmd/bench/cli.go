package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/tablekit/tablekit/devtools/azurite"
	"github.com/tablekit/tablekit/devtools/workload"
)

// The tablekit command is measured as a user runs it: the built binary as a
// subprocess against the same Azurite, its CPU and peak RSS read from the
// child's rusage when it exits.

// buildTool builds cmd/tablekit into dir.
func buildTool(ctx context.Context, dir string) (string, error) {
	bin := filepath.Join(dir, "tablekit")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/tablekit/tablekit/cmd/tablekit")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build cmd/tablekit: %w: %s", err, out)
	}
	return bin, nil
}

// tool runs the tablekit binary with args as a timed run of n entities:
// the sample's client CPU is the child's (this process only waits), rss its
// peak resident set, both read by the rusage wrapper (see wrapped).
func (b *bench) tool(ctx context.Context, bin string, n int, args ...string) (sample, error) {
	return b.toolTo(ctx, nil, bin, n, args...)
}

// toolTo is tool with the target account of a copy in another Azurite,
// whose CPU then counts as Azurite's too; nil for the same account.
func (b *bench) toolTo(ctx context.Context, tgt *target, bin string, n int, args ...string) (sample, error) {
	return b.tools(ctx, tgt, bin, n, args)
}

// tools runs one tablekit process per argument list, all at once, as one
// timed run of n entities: the client CPU is their sum, rss the highest
// peak.
func (b *bench) tools(ctx context.Context, tgt *target, bin string, n int, argss ...[]string) (sample, error) {
	cpus := make([]time.Duration, len(argss))
	rsss := make([]int64, len(argss))
	m := b.m
	env := append(os.Environ(), "TABLEKIT_CONNECTION_STRING="+azurite.ConnectionString(b.direct))
	if tgt != nil {
		m.srv = m.srv.with(tgt.cpu)
		env = append(env, "TABLEKIT_TARGET_CONNECTION_STRING="+azurite.ConnectionString(tgt.b.direct))
	}
	s, err := m.measure(ctx, func(ctx context.Context) (int, error) {
		g, ctx := errgroup.WithContext(ctx)
		for i, args := range argss {
			g.Go(func() error {
				cmd, usage, err := wrapped(ctx, bin, args)
				if err != nil {
					return err
				}
				if usage != nil {
					defer usage.Close()
				}
				cmd.Env = env
				var errb bytes.Buffer
				cmd.Stderr = &errb
				err = cmd.Run()
				rsss[i] = -1
				if cmd.ProcessState != nil {
					cpus[i] = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
				}
				if kib, user, sys, uerr := childUsage(usage); uerr == nil {
					rsss[i], cpus[i] = kib, time.Duration(user+sys)*time.Microsecond
				}
				if err != nil {
					return fmt.Errorf("tablekit %v: %w: %s", args, err, errb.Bytes())
				}
				return nil
			})
		}
		return n, g.Wait()
	})
	s.rss = -1
	for i := range argss {
		s.cpu += cpus[i]
		s.rss = max(s.rss, rsss[i])
	}
	return s, err
}

func countLines(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n := 0
	for sc.Scan() {
		n++
	}
	return n, sc.Err()
}

// runCLI measures export, import and copy of the scan table src (holding
// every item), rounds interleaved, then the peak RSS of copying a table of
// bigCopy entities.
func (b *bench) runCLI(ctx context.Context, src string) error {
	dir, err := os.MkdirTemp("", "tablekit-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin, err := buildTool(ctx, dir)
	if err != nil {
		return err
	}
	tgt, err := b.startTarget(ctx)
	if err != nil {
		return err
	}
	defer tgt.stop()
	n := len(b.items)
	if err := b.cliStart(ctx, bin, n); err != nil {
		return err
	}
	file := filepath.Join(dir, "export.jsonl")
	par := fmt.Sprint(b.cfg.scanParallel)
	plan, err := b.sharePlan(ctx, bin, src, dir)
	if err != nil {
		return err
	}
	for round := range b.cfg.rounds {
		rctx, cancel := context.WithTimeout(ctx, b.cfg.scenarioTimeout)
		err := b.cliRound(rctx, bin, src, file, par, n, round, tgt)
		if err == nil {
			err = b.sharesRound(rctx, bin, src, plan, dir, n, round)
		}
		cancel()
		if err != nil {
			return err
		}
	}
	return b.runBigCopy(ctx, bin, par)
}

// cliStart is the key of the command's start alone: `tablekit export
// --help`, a process that starts, sets up export's flags and exits, counted per entity of a
// round (n) so that it reads beside the command's runs.
const cliStart = "cli/start"

// cliStart measures the command's start, five times.
func (b *bench) cliStart(ctx context.Context, bin string, n int) error {
	for range 5 {
		s, err := b.tool(ctx, bin, n, "export", "--help")
		if err != nil {
			return fmt.Errorf("%s: %w", cliStart, err)
		}
		b.record(cliStart, s)
	}
	return nil
}

// target is a second account, in an Azurite of its own, for the copy
// between accounts.
type target struct {
	b    *bench // this bench with the target's endpoint, for its tables
	cpu  *procCPU
	stop func()
}

// startTarget starts the second Azurite.
func (b *bench) startTarget(ctx context.Context) (*target, error) {
	srv, err := azurite.Start(ctx)
	if err != nil {
		return nil, fmt.Errorf("the target account's Azurite: %w", err)
	}
	tb := &bench{cfg: b.cfg, direct: srv.Endpoint(), log: b.log}
	return &target{b: tb, cpu: findAzurite(srv.Port), stop: srv.Stop}, nil
}

// The library's runs the command's are compared with, measured again in
// each of the command's rounds so that both sides meet the same Azurite
// (whose cost per entity drifts over a run).
// libScanEnv tells this program, run again, to be the library's side of
// the export: the parallel scan of a table in a process of its own.
const libScanEnv = "TABLEKIT_BENCH_LIB_SCAN"

// libScanGC is the collector's setting of that scan: the one `tablekit
// export` gives itself (cmd/tablekit/run_gc.go, gcExport), so that both
// sides collect alike and their comparison is of their code.
var libScanGC = []string{"GOGC=400", "GOMEMLIMIT=64MiB"}

const (
	cliLibScan = "cli/lib-scan" // the parallel scan of the scan table, in a process of its own
	cliLibBulk = "cli/lib-bulk" // batch.Write of the same entities into a new table
)

func (b *bench) cliRound(ctx context.Context, bin, src, file, par string, n, round int, tgt *target) error {
	// Each of the command's runs follows the library's run it is compared
	// with, so that the two meet the machine and Azurite as they were at
	// that moment: on a shared machine the CPU an entity costs either side
	// drifts between the moments of a round by as much as the margins
	// judged here (see pairedCPU). The export and the scan are the
	// shortest runs compared, about a second each, where a shared
	// machine's noise is largest: each round runs that pair cfg.cliPairs
	// times, each pair judged on its own.
	for pair := range b.cfg.cliPairs {
		if err := b.cliLibScan(ctx, src); err != nil {
			return fmt.Errorf("the library's scan, round %d: %w", round+1, err)
		}
		_ = os.Remove(file)
		s, err := b.tool(ctx, bin, n, "export", src, "-o", file, "--parallel", par)
		if err == nil && round == 0 && pair == 0 {
			var lines int
			if lines, err = countLines(file); err == nil && lines != n {
				err = fmt.Errorf("exported %d lines, want %d", lines, n)
			}
		}
		if err != nil {
			return fmt.Errorf("cli/export round %d: %w", round+1, err)
		}
		b.record("cli/export", s)
	}
	type scenario struct {
		key  string
		to   *target // the copy's target account, nil for this one
		args func(dst string) []string
	}
	// The import and the library's write before it run cfg.cliPairs times
	// too, each pair judged on its own: one import's CPU varies as much
	// as an export's.
	var scs []scenario
	for range b.cfg.cliPairs {
		scs = append(scs, scenario{"cli/import", nil, func(dst string) []string { return []string{"import", dst, file, "--create"} }})
	}
	scs = append(scs,
		scenario{"cli/copy", nil, func(dst string) []string { return []string{"copy", src, dst, "--parallel", par} }},
		scenario{"cli/copy-accounts", tgt, func(dst string) []string { return []string{"copy", src, dst, "--parallel", par} }})
	for i, sc := range scs {
		if sc.key == "cli/import" {
			if err := b.cliLibBulk(ctx); err != nil {
				return fmt.Errorf("the library's bulk write, round %d: %w", round+1, err)
			}
		}
		dst, on := b.tableName("cli"), b
		if sc.to != nil {
			on = sc.to.b
		}
		s, err := b.toolTo(ctx, sc.to, bin, n, sc.args(dst)...)
		if err == nil && round == 0 && (i == 0 || sc.key != scs[i-1].key) {
			err = on.verifyCount(ctx, dst, n)
		}
		if err == nil && sc.to != nil {
			// The copy in the other account is verify's target.
			err = b.verifyRound(ctx, bin, src, dst, par, n, sc.to)
		}
		if derr := on.deleteTable(context.WithoutCancel(ctx), dst); err == nil {
			err = derr
		}
		if err != nil {
			return fmt.Errorf("%s round %d: %w", sc.key, round+1, err)
		}
		b.record(sc.key, s)
	}
	return nil
}

// cliLibScan measures the library's side of export: the parallel scan of
// src.
func (b *bench) cliLibScan(ctx context.Context, src string) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	// The scan runs in a process of its own, as the command does: in this
	// one, which holds the benchmark's 50,000 items, the collector would
	// run far less often than in any program that just scans. Its CPU is
	// counted from before it connects, while the command's includes its
	// start: if anything, the comparison is hard on the command.
	job, _ := json.Marshal(heapJob{Endpoint: b.direct, Table: src, Parallel: b.cfg.scanParallel})
	var res heapResult
	s, err := b.m.measure(ctx, func(ctx context.Context) (n int, err error) {
		res, err = runScanChild(ctx, exe, append([]string{libScanEnv + "=" + string(job)}, libScanGC...)...)
		return res.N, err
	})
	s.cpu += res.CPU // the scan's own, its process's start left out
	if err == nil && s.n != len(b.items) {
		err = fmt.Errorf("scanned %d entities, want %d", s.n, len(b.items))
	}
	if err != nil {
		return err
	}
	b.record(cliLibScan, s)
	return nil
}

// cliLibBulk measures the library's side of import: batch.Write of every
// item into a new table, deleted after.
func (b *bench) cliLibBulk(ctx context.Context) error {
	dst := b.tableName("cli")
	if err := b.createTable(ctx, dst); err != nil {
		return err
	}
	write := b.bulkWriter()
	s, err := b.m.measure(ctx, func(ctx context.Context) (int, error) { return write(ctx, b.direct, dst, b.items) })
	if derr := b.deleteTable(context.WithoutCancel(ctx), dst); err == nil {
		err = derr
	}
	if err != nil {
		return err
	}
	b.record(cliLibBulk, s)
	return nil
}

// runBigCopy loads a table of bigCopy entities (untimed, in slices so that
// this process never holds them all) and copies it once with the command,
// for its peak RSS.
func (b *bench) runBigCopy(ctx context.Context, bin, par string) error {
	total := b.cfg.bigCopy
	src, dst := b.tableName("big"), b.tableName("big")
	if err := b.createTable(ctx, src); err != nil {
		return err
	}
	defer func() {
		_ = b.deleteTable(context.WithoutCancel(ctx), src)
		_ = b.deleteTable(context.WithoutCancel(ctx), dst)
	}()
	c, err := plainClient(b.direct, src, nil)
	if err != nil {
		return err
	}
	t0 := time.Now()
	for lo := 0; lo < total; lo += len(b.items) {
		hi := min(total, lo+len(b.items))
		if _, err := insertPlainTxn(ctx, c, workload.Items(lo, hi), b.cfg.txnOps, b.cfg.txnWorkers); err != nil {
			return fmt.Errorf("loading the copy table: %w", err)
		}
	}
	b.log("loaded %d entities in %.1fs", total, time.Since(t0).Seconds())
	rctx, cancel := context.WithTimeout(ctx, 2*b.cfg.scenarioTimeout)
	defer cancel()
	s, err := b.tool(rctx, bin, total, "copy", src, dst, "--parallel", par)
	if err == nil {
		err = b.verifyCount(ctx, dst, total)
	}
	if err != nil {
		return fmt.Errorf("cli/copy-big: %w", err)
	}
	b.record("cli/copy-big", s)
	return nil
}
