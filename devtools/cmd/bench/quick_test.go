package main

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tablekit/tablekit/devtools/testenv"
)

// TestMain lets the test binary serve as the rusage wrapper too: the cli
// step re-executes os.Executable, which is this binary under go test.
func TestMain(m *testing.M) {
	if len(os.Args) > 2 && os.Args[1] == rusageWrapperArg {
		os.Exit(runRusageWrapper(os.Args[2:]))
	}
	os.Exit(testenv.Run(m))
}

// tinyConfig is quick mode cut down further, so that the whole program runs
// against Azurite in seconds, also under the race detector.
func tinyConfig() config {
	c := quickConfig()
	c.entities = 200
	c.seqSample, c.seqSampleLat = 20, 5
	c.parSample, c.parSampleLat = 40, 16
	c.connRequests = 128
	c.bytesInserts = 10
	c.bigCopy, c.capBulk, c.capSegments = 400, 200, 2
	c.benchTime = time.Millisecond
	return c
}

// TestQuickRun runs every scenario once, tiny, against Azurite and checks
// that the report has every section and a verdict for every target, and
// that every chart has data.
func TestQuickRun(t *testing.T) {
	env := testenv.Azurite(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	bn, envi, over, err := measureAll(ctx, tinyConfig(), env.Endpoint, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	rep := bn.report(envi, over)
	var b strings.Builder
	if err := rep.Markdown(&b); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{
		"## Environment", "## Targets", "## Bulk insert", "## Scan", "## Connections under parallel load",
		"## Bytes received per insert", "## Client overhead without a server", "## Why Azurite on 2 cores caps",
		"tablekit bulk writer", "tablekit parallel segmented query", "hand-written errgroup fan-out",
		"Quick smoke run", "## The tablekit command", "## Client capacity", "`tablekit export", "`tablekit copy", "to another account", "`tablekit verify", "processes at once", "serial bound",
		"table.Entity", "Transactions:", "peak Go heap", "client cores for 20,000 entities/s", "per core vs hand-written",
		"## Throughput against a busy account", "`tablekit copy --rate -1` (off)", "`tablekit copy`, default (adaptive)",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Contains(md, "NaN") {
		t.Error("NaN in the report")
	}
	for _, tg := range rep.Targets {
		// On a busy machine the busy rule refuses rates; anything else
		// must be measured.
		if tg.Status == NotMeasured && !strings.HasPrefix(tg.Why, "machine busy") {
			t.Errorf("target %q not measured", tg.Name)
		}
	}
	if t.Failed() {
		t.Log(md)
	}
	// The charts read the keys the scenarios record: a run has data for each.
	cs := bn.charts(envi, over)
	var files []string
	for _, c := range cs {
		files = append(files, c.File)
	}
	slices.Sort(files)
	if !slices.Equal(files, wantCharts) {
		t.Errorf("charts of a quick run %q, want %q", files, wantCharts)
	}
	if err := drawCharts(t.TempDir(), cs); err != nil {
		t.Error(err)
	}
}
