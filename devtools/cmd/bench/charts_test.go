package main

import (
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/plot"
)

// fixedRun is a run of fixed samples: every scenario the charts read, three
// rounds each, and every client-overhead benchmark they compare.
func fixedRun() (*bench, *envInfo, map[string][]overheadObs) {
	b := &bench{cfg: fullConfig(), res: map[string][]sample{}}
	rate := 1000.0
	add := func(key string) {
		rate *= 1.3
		for round := range 3 {
			wall := time.Duration(float64(time.Second) * (1 + 0.1*float64(round)))
			n := int(rate * wall.Seconds())
			b.res[key] = append(b.res[key], sample{n: n, wall: wall, cpu: wall / 2, srv: wall / 3, js: wall / 4, sys: 0.5})
		}
	}
	for _, lat := range []string{"local", "lat", "high"} {
		for _, s := range []string{"scan/plain-seq/", "scan/tk-seq/", "scan/tk-par/", "scan/plain-fan/"} {
			add(s + lat)
		}
	}
	for _, lat := range []string{"local", "lat"} {
		for _, s := range []string{"insert/plain-seq/", "insert/plain-par/", "insert/plain-txn/", "insert/tk-bulk/"} {
			add(s + lat)
		}
	}
	for _, k := range []string{"cap/bulk", "cap/plain-txn", "cap/scan", "cap/plain-fan"} {
		add(k)
	}
	over := map[string][]overheadObs{}
	for i, name := range []string{"write/typed", "write/prebuilt", "decode/typed", "decode/edm", "page/query", "page/pager-struct", "tx/typed", "tx/prebuilt"} {
		for round := range 3 {
			over[name] = append(over[name], overheadObs{cpuNs: float64(1000*(i+1) + 10*round), wallNs: 900, allocs: 3, bytes: 1200, runs: 1000})
		}
	}
	env := &envInfo{
		date: time.Date(2026, 11, 26, 9, 30, 0, 0, time.UTC), command: "go run ./devtools/cmd/bench -out BENCHMARKS.md",
		goVersion: "go1.26.8", platform: "linux/amd64", cores: 2, maxProcs: 2, cpuModel: "AMD EPYC",
		azurite: "3.37.0", node: "v20.20.2", loadStart: "0.10 0.20 0.30", loadEnd: "1.00 1.10 1.20", duration: 800 * time.Second,
	}
	return b, env, over
}

// wantCharts are the files a full run draws.
var wantCharts = []string{
	"bulk-inflight-20ms.svg", "bulk-inflight-local.svg", "bulk-latency.svg", "capacity.svg",
	"client-cpu.svg", "scan-inflight-20ms.svg", "scan-inflight-local.svg", "scan-latency.svg",
}

// TestChartsDrawn draws the charts of fixed results and checks each file:
// valid SVG, its title and machine line, and one series per side, each in
// the legend.
func TestChartsDrawn(t *testing.T) {
	b, env, over := fixedRun()
	cs := b.charts(env, over)
	dir := t.TempDir()
	if err := drawCharts(dir, cs); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cs {
		got = append(got, c.File)
	}
	slices.Sort(got)
	if !slices.Equal(got, wantCharts) {
		t.Fatalf("charts %q, want %q", got, wantCharts)
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.svg"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(files), len(wantCharts); got != want {
		t.Errorf("%d SVG files written, want %d", got, want)
	}
	for _, c := range cs {
		t.Run(c.File, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dir, c.File))
			if err != nil {
				t.Fatal(err)
			}
			text := svgText(t, data)
			for _, want := range []string{c.Title, c.About, c.X, c.Y} {
				if !strings.Contains(text, want) {
					t.Errorf("SVG lacks %q", want)
				}
			}
			if !strings.Contains(c.About, "2026-11-26 09:30 UTC") || !strings.Contains(c.About, "2 cores (AMD EPYC)") {
				t.Errorf("machine line %q does not say when and on what", c.About)
			}
			sides := map[string]int{}
			for _, s := range c.Series {
				side := sideOf(s.Name)
				if side == "" {
					t.Errorf("series %q is of no side", s.Name)
				}
				sides[side]++
				if !strings.Contains(text, s.Name) {
					t.Errorf("legend lacks series %q", s.Name)
				}
				if len(s.Points) == 0 && len(s.Values) == 0 {
					t.Errorf("series %q has no data", s.Name)
				}
				if c.Groups != nil && len(s.Values) != len(c.Groups) {
					t.Errorf("series %q: %d values for %d groups", s.Name, len(s.Values), len(c.Groups))
				}
			}
			if sides[sideTablekit] != 1 || len(sides) < 2 {
				t.Errorf("series per side %v, want one tablekit and one of each other side", sides)
			}
			for side, n := range sides {
				if n != 1 {
					t.Errorf("%d series of side %q, want 1", n, side)
				}
			}
		})
	}
}

// sideOf is the side a series name starts with ("" for none).
func sideOf(name string) string {
	for _, s := range []string{sideTablekit, sidePlain, sideHandWritten} {
		if name == s || strings.HasPrefix(name, s+" (") {
			return s
		}
	}
	return ""
}

// svgText checks that data is one well-formed XML document whose root is
// svg, and returns its text content (titles, labels, legend).
func svgText(t *testing.T, data []byte) string {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(data))
	var text strings.Builder
	root := ""
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = tok.Name.Local
			}
		case xml.CharData:
			text.Write(tok)
			text.WriteByte('\n')
		}
	}
	if root != "svg" {
		t.Fatalf("root element %q, want svg", root)
	}
	return text.String()
}

// The values a chart shows are the medians the tables show.
func TestChartValues(t *testing.T) {
	b, env, over := fixedRun()
	byFile := map[string]chart{}
	for _, c := range b.charts(env, over) {
		byFile[c.File] = c
	}
	for _, tc := range []struct {
		file, series string
		x, got, want float64
	}{
		{"scan-inflight-local.svg", sideTablekit, 16, pointY(byFile["scan-inflight-local.svg"], sideTablekit, 16), b.rate("scan/tk-par/local")},
		{"scan-inflight-local.svg", sideTablekit, 1, pointY(byFile["scan-inflight-local.svg"], sideTablekit, 1), b.rate("scan/tk-seq/local")},
		{"bulk-latency.svg", sideHandWritten, 20, pointY(byFile["bulk-latency.svg"], sideHandWritten, 20), b.rate("insert/plain-txn/lat")},
		{"scan-latency.svg", sidePlain, 100, pointY(byFile["scan-latency.svg"], sidePlain, 100), b.rate("scan/plain-seq/high")},
		{"capacity.svg", sideTablekit, 0, byFile["capacity.svg"].Series[0].Values[1], b.perCore("cap/scan")},
		{"client-cpu.svg", sidePlain, 0, byFile["client-cpu.svg"].Series[1].Values[3], overCPU(over, "tx/prebuilt") / 1000},
	} {
		if tc.got != tc.want || tc.want <= 0 {
			t.Errorf("%s, %s at %v: got %v, want %v", tc.file, tc.series, tc.x, tc.got, tc.want)
		}
	}
	if got, want := byFile["client-cpu.svg"].Groups, []string{"insert", "decode one entity", "read a 1,000-entity page", "100-operation transaction"}; !slices.Equal(got, want) {
		t.Errorf("client-cpu groups %q, want %q", got, want)
	}
}

// pointY is the Y of the point at x of the chart's series of side (NaN
// stands out as a mismatch: there is none).
func pointY(c chart, side string, x float64) float64 {
	for _, s := range c.Series {
		if sideOf(s.Name) != side {
			continue
		}
		for _, p := range s.Points {
			if p.X == x {
				return p.Y
			}
		}
	}
	return -1
}

// A run that measured nothing draws no chart (never an empty or NaN one).
func TestChartsWithoutSamples(t *testing.T) {
	b := &bench{cfg: quickConfig(), res: map[string][]sample{}}
	if cs := b.charts(&envInfo{date: time.Now()}, map[string][]overheadObs{}); len(cs) != 0 {
		var names []string
		for _, c := range cs {
			names = append(names, c.File)
		}
		t.Errorf("charts %q drawn without samples, want none", names)
	}
}

// A run saved and loaded again gives the same charts, from the same samples.
func TestSavedRunRoundTrip(t *testing.T) {
	b, env, over := fixedRun()
	path := filepath.Join(t.TempDir(), resultsFile)
	if err := b.save(path, env, over); err != nil {
		t.Fatal(err)
	}
	b2, env2, over2, err := loadRun(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(b2.res, b.res) {
		t.Errorf("samples after a round trip:\n%v\nwant\n%v", b2.res, b.res)
	}
	if !reflect.DeepEqual(over2, over) {
		t.Errorf("overhead results after a round trip:\n%v\nwant\n%v", over2, over)
	}
	if *env2 != *env {
		t.Errorf("environment after a round trip:\n%+v\nwant\n%+v", *env2, *env)
	}
	if got, want := b2.charts(env2, over2), b.charts(env, over); !reflect.DeepEqual(got, want) {
		t.Errorf("charts after a round trip differ:\n%+v\nwant\n%+v", got, want)
	}
	dir := t.TempDir()
	if err := redraw(path, dir); err != nil {
		t.Fatal(err)
	}
	for _, f := range wantCharts {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("redraw: %v", err)
		}
	}
}

func TestLoadRunRefusesOtherFormats(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, data string }{
		{"version.json", `{"Version": 99}`},
		{"broken.json", `{"Version": 1,`},
	} {
		path := filepath.Join(dir, tc.name)
		if err := os.WriteFile(path, []byte(tc.data), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, _, _, err := loadRun(path); err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("loadRun(%s) = %v, want an error naming the file", tc.name, err)
		}
	}
}

func TestChartLinks(t *testing.T) {
	cs := []chart{{File: "scan-latency.svg", Title: "Scan [x]: entities/s"}}
	for _, tc := range []struct{ out, dir, want string }{
		{"BENCHMARKS.md", "docs/bench", "![Scan [x): entities/s](docs/bench/scan-latency.svg)"},
		{"/w/BENCHMARKS.md", "/w/docs/bench", "![Scan [x): entities/s](docs/bench/scan-latency.svg)"},
		{"out/report.md", "docs/bench", "![Scan [x): entities/s](../docs/bench/scan-latency.svg)"},
	} {
		if got := chartLinks(tc.out, tc.dir, cs); len(got) != 1 || got[0] != tc.want {
			t.Errorf("chartLinks(%q, %q) = %q, want %q", tc.out, tc.dir, got, tc.want)
		}
	}
}

// gonum/plot draws make bench's charts only: no package a user imports, the
// command included, may pull it in.
func TestPlotStaysInDevtools(t *testing.T) {
	const mod = "github.com/tablekit/tablekit"
	pkgs := []string{mod, mod + "/table", mod + "/query", mod + "/batch", mod + "/sas", mod + "/retry", mod + "/cmd/tablekit"}
	out, err := exec.Command("go", append([]string{"list", "-deps"}, pkgs...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, mod+"/table") {
		t.Fatalf("go list -deps lists no %s/table: %q", mod, deps)
	}
	for _, d := range deps {
		if strings.HasPrefix(d, "gonum.org/") {
			t.Errorf("a library package depends on %s", d)
		}
	}
}

// Axis labels print numbers as the tables do: 1, 2 and 5 of each decade on
// a log axis, thousands separated.
func TestTickLabels(t *testing.T) {
	labels := func(ts []plot.Tick) []string {
		var out []string
		for _, tk := range ts {
			if tk.Label != "" {
				out = append(out, tk.Label)
			}
		}
		return out
	}
	for _, tc := range []struct {
		name      string
		got, want []string
	}{
		{"log 30-2,500", labels(logTicks(30, 2500)), []string{"50", "100", "200", "500", "1,000", "2,000"}},
		{"log 1,000-1,000", labels(logTicks(1000, 1000)), []string{"1,000"}},
		{"linear 0-1,200,000", labels(linearTicks(0, 1_200_000)), []string{"0", "500,000", "1,000,000"}},
	} {
		if !slices.Equal(tc.got, tc.want) {
			t.Errorf("%s: labels %q, want %q", tc.name, tc.got, tc.want)
		}
	}
}
