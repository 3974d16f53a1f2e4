// Command bench measures tablekit side by side with plain aztables code
// against a freshly started Azurite, optionally behind the latency proxy,
// and writes the results to BENCHMARKS.md. `make bench` runs it:
//
//	go run ./devtools/cmd/bench -out BENCHMARKS.md
//
// -quick runs every scenario once with tiny counts (well under a minute), to
// check the program rather than measure. Everything runs on 127.0.0.1, and
// every run is bounded: the whole program stops itself after -timeout.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
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
	only := fs.String("only", "", "comma-separated steps to run (overhead, inserts, inserts-latency, scans, heap, cli, capacity, conns, bytes); for development, the report is then incomplete")
	_ = fs.Parse(os.Args[1:])

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
	if err := runMain(ctx, cfg, *out); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func runMain(ctx context.Context, cfg config, out string) error {
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
	rep, err := run(ctx, cfg, srv.Endpoint(), logf)
	if err != nil {
		return err
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
