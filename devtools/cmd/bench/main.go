// Command bench measures tablekit side by side with plain aztables code
// against a freshly started Azurite, optionally behind the latency proxy,
// and writes the results to BENCHMARKS.md. `make bench` runs it:
//
//	go run ./devtools/cmd/bench -out BENCHMARKS.md
//
// -quick runs every scenario once with tiny counts (well under a minute), to
// check the program rather than measure. Everything runs on 127.0.0.1, and
// every run is bounded: the whole program stops itself after -timeout.
//
// Beside the report it saves the results (results.json) and draws them as
// SVG charts into -charts (docs/bench), which the report shows. -charts-from
// draws the charts again from saved results, measuring nothing:
//
//	go run ./devtools/cmd/bench -charts-from docs/bench/results.json
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/tablekit/tablekit/devtools/azurite"
)

func main() {
	if len(os.Args) > 2 && os.Args[1] == rusageWrapperArg {
		os.Exit(runRusageWrapper(os.Args[2:]))
	}
	fs := flag.NewFlagSet("bench", flag.ExitOnError)
	out := fs.String("out", "BENCHMARKS.md", "file to write the report to (- for standard output)")
	quick := fs.Bool("quick", false, "smoke run: every scenario once with tiny counts")
	rounds := fs.Int("rounds", 0, "rounds per scenario (default 3, 1 with -quick)")
	timeout := fs.Duration("timeout", 20*time.Minute, "stop after this long (a full run takes about 12 minutes on an idle 2-core machine)")
	only := fs.String("only", "", "comma-separated steps to run (overhead, inserts, inserts-latency, scans, heap, cli, capacity, conns, bytes, throughput, backups); for development, the report is then incomplete")
	charts := fs.String("charts", "docs/bench", "directory for the charts (SVG) and results.json; empty for none")
	chartsFrom := fs.String("charts-from", "", "draw the charts into -charts from this results.json, measuring nothing")
	_ = fs.Parse(os.Args[1:])
	if *chartsFrom != "" {
		if err := redraw(*chartsFrom, *charts); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}

	cfg := fullConfig()
	if *quick {
		cfg = quickConfig()
	}
	if *rounds > 0 {
		cfg.rounds = *rounds
	}
	if *only != "" {
		cfg.only = map[string]bool{}
		for _, s := range strings.Split(*only, ",") {
			cfg.only[strings.TrimSpace(s)] = true
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	if err := runMain(ctx, cfg, *out, *charts); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func runMain(ctx context.Context, cfg config, out, charts string) error {
	srv, err := azurite.Start(ctx)
	if err != nil {
		return err
	}
	defer srv.Stop()
	start := time.Now()
	logf := func(format string, args ...any) {
		fmt.Fprintf(os.Stderr, "bench %5.0fs: "+format+"\n", append([]any{time.Since(start).Seconds()}, args...)...)
	}
	logf("Azurite on 127.0.0.1:%d", srv.Port)
	b, env, over, err := measureAll(ctx, cfg, srv.Endpoint(), logf)
	if err != nil {
		return err
	}
	rep := b.report(env, over)
	if charts != "" {
		cs := b.charts(env, over)
		if err := writeCharts(charts, b, env, over, cs); err != nil {
			return err
		}
		rep.Charts = chartLinks(out, charts, cs)
		logf("wrote %d charts and results.json into %s", len(cs), charts)
	}
	var buf bytes.Buffer
	if err := rep.Markdown(&buf); err != nil {
		return err
	}
	if out == "-" {
		_, err = os.Stdout.Write(buf.Bytes())
		return err
	}
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		return err
	}
	logf("wrote %s", out)
	return nil
}

// writeCharts saves the results into dir and draws their charts there.
func writeCharts(dir string, b *bench, env *envInfo, over map[string][]overheadObs, cs []chart) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := b.save(filepath.Join(dir, resultsFile), env, over); err != nil {
		return err
	}
	return drawCharts(dir, cs)
}

// resultsFile is the name of the saved results beside the charts.
const resultsFile = "results.json"

// redraw draws the charts of the results saved in from into dir.
func redraw(from, dir string) error {
	if dir == "" {
		return fmt.Errorf("-charts-from needs a -charts directory")
	}
	b, env, over, err := loadRun(from)
	if err != nil {
		return err
	}
	cs := b.charts(env, over)
	if err := drawCharts(dir, cs); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "bench: drew %d charts from %s into %s\n", len(cs), from, dir)
	return nil
}
