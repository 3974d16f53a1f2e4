package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"

	"golang.org/x/sync/errgroup"

	"github.com/tablekit/tablekit/devtools/azurite"
	"github.com/tablekit/tablekit/devtools/workload"
	"github.com/tablekit/tablekit/query"
	"github.com/tablekit/tablekit/table"
)

// The mover at scale: verify against the scans it is made of, and shares
// of a plan run by several processes against one process doing it all.
const (
	cliLibScanPair = "cli/lib-scan-pair" // parallel scans of the source and of its copy in the other account, side by side
	cliVerify      = "cli/verify"
	cliShares      = "cli/export-shares"
)

// shareProcs is how many processes read the shares of a plan at once: one
// per core of the machine the targets are stated for.
const shareProcs = 2

// sharePlan writes a plan of shareProcs shares of src, once (untimed).
func (b *bench) sharePlan(ctx context.Context, bin, src, dir string) (string, error) {
	plan := filepath.Join(dir, "shares.plan")
	cmd := exec.CommandContext(ctx, bin, "plan", src, "--shares", strconv.Itoa(shareProcs), "-o", plan)
	cmd.Env = append(os.Environ(), "TABLEKIT_CONNECTION_STRING="+azurite.ConnectionString(b.direct))
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("tablekit plan: %w: %s", err, out)
	}
	return plan, nil
}

// sharesRound exports src as shareProcs processes at once, each on its
// share of the plan with its part of the parallelism of the one-process
// export (cli/export).
func (b *bench) sharesRound(ctx context.Context, bin, src, plan, dir string, n, round int) error {
	par := strconv.Itoa(max(1, b.cfg.scanParallel/shareProcs))
	var argss [][]string
	var files []string
	for i := 1; i <= shareProcs; i++ {
		f := filepath.Join(dir, fmt.Sprintf("share-%d.jsonl", i))
		_ = os.Remove(f)
		files = append(files, f)
		argss = append(argss, []string{"export", src, "-o", f, "--plan", plan, "--segment", fmt.Sprintf("%d/%d", i, shareProcs), "--parallel", par})
	}
	s, err := b.tools(ctx, nil, bin, n, argss...)
	if err == nil && round == 0 {
		total := 0
		for _, f := range files {
			lines, cerr := countLines(f)
			if cerr != nil {
				return cerr
			}
			total += lines
		}
		if total != n {
			err = fmt.Errorf("the shares' files hold %d lines, want %d", total, n)
		}
	}
	if err != nil {
		return fmt.Errorf("%s round %d: %w", cliShares, round+1, err)
	}
	b.record(cliShares, s)
	return nil
}

// verifyRound measures two library scans side by side, src here and dst
// in the other account, then tablekit verify of the two (equal: exit 0).
func (b *bench) verifyRound(ctx context.Context, bin, src, dst, par string, n int, tgt *target) error {
	st, err := tkTable(b.direct, src, nil)
	if err != nil {
		return err
	}
	dt, err := tkTable(tgt.b.direct, dst, nil)
	if err != nil {
		return err
	}
	pks := workload.PartitionKeys()
	m := b.m
	m.srv = m.srv.with(tgt.cpu)
	s, err := m.measure(ctx, func(ctx context.Context) (int, error) {
		var got [2]int
		g, ctx := errgroup.WithContext(ctx)
		for i, tbl := range []*table.Table[workload.Item]{st, dt} {
			g.Go(func() (err error) {
				got[i], err = scanTkParallel(ctx, query.New(tbl), pks, b.cfg.scanParallel)
				return err
			})
		}
		if err := g.Wait(); err != nil {
			return 0, err
		}
		if got[0] != n || got[1] != n {
			return 0, fmt.Errorf("the two scans read %d and %d entities, want %d", got[0], got[1], n)
		}
		return n, nil
	})
	if err != nil {
		return fmt.Errorf("%s: %w", cliLibScanPair, err)
	}
	b.record(cliLibScanPair, s)
	s, err = b.toolTo(ctx, tgt, bin, n, "verify", src, dst, "--parallel", par)
	if err != nil {
		return fmt.Errorf("%s: %w", cliVerify, err)
	}
	b.record(cliVerify, s)
	return nil
}
