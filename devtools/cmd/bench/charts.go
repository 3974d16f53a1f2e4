package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/tablekit/tablekit/batch"
	"github.com/tablekit/tablekit/devtools/workload"
)

// chart is one figure of BENCHMARKS.md: its data, taken from the same
// samples as the tables, and what it says about them. draw renders it.
type chart struct {
	File  string // file name in the charts directory, "scan-inflight-local.svg"
	Title string // what was measured
	About string // on what machine and when
	X, Y  string // axis labels
	LogY  bool   // rates that span orders of magnitude
	// Lines: each series a line through its points. Bars: Groups name the
	// groups along X, and each series has one value per group.
	Groups []string
	Series []series
}

// series is one side of a comparison: tablekit, plain aztables, or the
// hand-written code.
type series struct {
	Name   string
	Points []point   // lines
	Values []float64 // bars, one per group
}

type point struct{ X, Y float64 }

// The sides every chart compares, named the same way in each.
const (
	sideTablekit    = "tablekit"
	sidePlain       = "plain aztables"
	sideHandWritten = "hand-written aztables"
)

// charts lists the figures of a run, built from the samples of b and the
// client-overhead results; a figure without data is left out.
func (b *bench) charts(env *envInfo, over map[string][]overheadObs) []chart {
	about := chartAbout(env, b.cfg.quick)
	var out []chart
	add := func(c chart) {
		c.About = about
		if c.hasData() {
			out = append(out, c)
		}
	}
	cfg := b.cfg
	for _, lat := range []struct {
		key, file, label string
	}{
		{"local", "local", "no added latency"},
		{"lat", fmtFileDur(cfg.latency), fmtDur(cfg.latency) + " added to every request"},
	} {
		add(chart{
			File:  "scan-inflight-" + lat.file + ".svg",
			Title: fmt.Sprintf("Scan of %s entities, %s: entities/s by requests in flight", fmtInt(cfg.entities), lat.label),
			X:     "requests in flight", Y: "entities/s (median)",
			Series: []series{
				{Name: sideTablekit, Points: b.points([]inflight{{1, "scan/tk-seq/" + lat.key}, {cfg.scanParallel, "scan/tk-par/" + lat.key}})},
				{Name: sidePlain + " (pager)", Points: b.points([]inflight{{1, "scan/plain-seq/" + lat.key}})},
				{Name: sideHandWritten + " (errgroup fan-out)", Points: b.points([]inflight{{cfg.scanParallel, "scan/plain-fan/" + lat.key}})},
			},
		})
		add(chart{
			File:  "bulk-inflight-" + lat.file + ".svg",
			Title: fmt.Sprintf("Inserts, %s: entities/s by requests in flight (AddEntity on a sample, the others %s entities)", lat.label, fmtInt(cfg.entities)),
			X:     "requests in flight", Y: "entities/s (median)", LogY: true,
			Series: []series{
				{Name: sideTablekit + " (batch.Write)", Points: b.points([]inflight{{batch.DefaultInFlight, "insert/tk-bulk/" + lat.key}})},
				{Name: sidePlain + " (AddEntity)", Points: b.points([]inflight{{1, "insert/plain-seq/" + lat.key}, {cfg.parWorkers, "insert/plain-par/" + lat.key}})},
				{Name: sideHandWritten + " (transaction loop)", Points: b.points([]inflight{{cfg.txnWorkers, "insert/plain-txn/" + lat.key}})},
			},
		})
	}
	lats := []struct {
		key string
		ms  float64
	}{{"local", 0}, {"lat", ms(cfg.latency)}, {"high", ms(cfg.latencyHigh)}}
	byLatency := func(scenario string) []point {
		var ps []point
		for _, l := range lats {
			if r := b.rate(scenario + "/" + l.key); r > 0 {
				ps = append(ps, point{l.ms, r})
			}
		}
		return ps
	}
	add(chart{
		File:  "scan-latency.svg",
		Title: fmt.Sprintf("Scan of %s entities: entities/s by added latency (%d in flight where parallel)", fmtInt(cfg.entities), cfg.scanParallel),
		X:     "added latency per request (ms)", Y: "entities/s (median)", LogY: true,
		Series: []series{
			{Name: sideTablekit + " (parallel)", Points: byLatency("scan/tk-par")},
			{Name: sidePlain + " (pager, sequential)", Points: byLatency("scan/plain-seq")},
			{Name: sideHandWritten + " (errgroup fan-out)", Points: byLatency("scan/plain-fan")},
		},
	})
	add(chart{
		File:  "bulk-latency.svg",
		Title: fmt.Sprintf("Inserts: entities/s by added latency (AddEntity on a sample, the others %s entities)", fmtInt(cfg.entities)),
		X:     "added latency per request (ms)", Y: "entities/s (median)", LogY: true,
		Series: []series{
			{Name: sideTablekit + " (batch.Write)", Points: byLatency("insert/tk-bulk")},
			{Name: sidePlain + " (AddEntity, sequential)", Points: byLatency("insert/plain-seq")},
			{Name: sideHandWritten + " (transaction loop)", Points: byLatency("insert/plain-txn")},
		},
	})
	add(overheadChart(over))
	add(b.capacityChart())
	return out
}

// inflight is a scenario and the requests it keeps in flight.
type inflight struct {
	n   int
	key string
}

// points are the median rates of the scenarios measured, at their
// requests in flight.
func (b *bench) points(s []inflight) []point {
	var ps []point
	for _, f := range s {
		if r := b.rate(f.key); r > 0 {
			ps = append(ps, point{float64(f.n), r})
		}
	}
	return ps
}

// overheadChart is client CPU per entity of each operation, tablekit's
// path beside the aztables path the targets compare it with.
func overheadChart(over map[string][]overheadObs) chart {
	c := chart{
		File:  "client-cpu.svg",
		Title: "Client CPU per entity by operation, in-process service (no network): tablekit against aztables",
		X:     "operation", Y: "client CPU µs per entity (median)",
	}
	tk, az := series{Name: sideTablekit}, series{Name: sidePlain}
	for _, op := range []struct{ label, tk, az string }{
		{"insert", "write/typed", "write/prebuilt"},
		{"decode one entity", "decode/typed", "decode/edm"},
		{fmt.Sprintf("read a %s-entity page", fmtNum(workload.PageSize)), "page/query", "page/pager-struct"},
		{fmt.Sprintf("%d-operation transaction", workload.TxOps), "tx/typed", "tx/prebuilt"},
	} {
		t, a := overCPU(over, op.tk)/1000, overCPU(over, op.az)/1000
		if !(t > 0) || !(a > 0) {
			continue
		}
		c.Groups = append(c.Groups, op.label)
		tk.Values = append(tk.Values, t)
		az.Values = append(az.Values, a)
	}
	c.Series = []series{tk, az}
	return c
}

// capacityChart is entities per second per client core against the
// in-process service, tablekit beside the hand-written code.
func (b *bench) capacityChart() chart {
	c := chart{
		File:  "capacity.svg",
		Title: fmt.Sprintf("Client capacity: entities/s per client core, in-process service, %s added latency", fmtDur(b.cfg.latency)),
		X:     "operation", Y: "entities/s per client core (median)",
	}
	tk, hw := series{Name: sideTablekit}, series{Name: sideHandWritten}
	for _, op := range []struct{ label, tk, hw string }{
		{"bulk write", "cap/bulk", "cap/plain-txn"},
		{"parallel scan", "cap/scan", "cap/plain-fan"},
	} {
		if len(b.res[op.tk]) == 0 || len(b.res[op.hw]) == 0 {
			continue
		}
		t, h := b.perCore(op.tk), b.perCore(op.hw)
		if !(t > 0) || !(h > 0) {
			continue
		}
		c.Groups = append(c.Groups, op.label)
		tk.Values = append(tk.Values, t)
		hw.Values = append(hw.Values, h)
	}
	c.Series = []series{tk, hw}
	return c
}

// chartAbout is the line under every title: the machine and the date.
func chartAbout(env *envInfo, quick bool) string {
	s := fmt.Sprintf("make bench, %s: %d cores (%s), %s, Azurite %s", env.date.UTC().Format("2006-01-02 15:04 MST"), env.cores, env.cpuModel, env.goVersion, env.azurite)
	if quick {
		s += "; quick smoke run, the numbers mean nothing"
	}
	return s
}

func (c *chart) hasData() bool {
	if c.Groups != nil {
		return len(c.Groups) > 0
	}
	for _, s := range c.Series {
		if len(s.Points) > 0 {
			return true
		}
	}
	return false
}

func ms(d time.Duration) float64 { return float64(d.Milliseconds()) }

// fmtFileDur is a duration in a file name: "20ms".
func fmtFileDur(d time.Duration) string {
	return fmt.Sprintf("%dms", d.Milliseconds())
}

// drawCharts writes every chart as an SVG file into dir.
func drawCharts(dir string, cs []chart) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, c := range cs {
		if err := c.draw(filepath.Join(dir, c.File)); err != nil {
			return fmt.Errorf("chart %s: %w", c.File, err)
		}
	}
	return nil
}

// Chart size: wide enough for a two-line title and a legend of four.
const chartW, chartH = 20 * vg.Centimeter, 12 * vg.Centimeter

func (c *chart) draw(path string) error {
	p := plot.New()
	p.Title.Text = c.Title + "\n" + c.About
	p.Title.TextStyle.Font.Size = vg.Points(10)
	p.X.Label.Text, p.Y.Label.Text = c.X, c.Y
	p.Legend.Top, p.Legend.Left = true, true
	p.Add(plotter.NewGrid())
	if c.Groups != nil {
		if err := c.addBars(p); err != nil {
			return err
		}
	} else if err := c.addLines(p); err != nil {
		return err
	}
	// Room above the data for the legend, in the top left corner.
	if c.LogY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.TickerFunc(logTicks)
		p.Y.Min, p.Y.Max = p.Y.Min/2, p.Y.Max*5
	} else {
		p.Y.Min, p.Y.Max = 0, p.Y.Max*1.35
		p.Y.Tick.Marker = plot.TickerFunc(linearTicks)
	}
	return p.Save(chartW, chartH, path)
}

// linearTicks are gonum's ticks labelled as the tables print numbers.
func linearTicks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = fmtNum(ts[i].Value)
		}
	}
	return ts
}

// logTicks marks 1, 2 and 5 of every decade with the numbers of the tables
// ("20,000"), the other digits without a label.
func logTicks(lo, hi float64) []plot.Tick {
	var ts []plot.Tick
	for dec := math.Pow10(int(math.Floor(math.Log10(lo)))); dec <= hi; dec *= 10 {
		for d := 1.0; d < 10; d++ {
			v := d * dec
			if v < lo || v > hi {
				continue
			}
			t := plot.Tick{Value: v}
			if d == 1 || d == 2 || d == 5 {
				t.Label = fmtNum(v)
			}
			ts = append(ts, t)
		}
	}
	return ts
}

func (c *chart) addLines(p *plot.Plot) error {
	for i, s := range c.Series {
		if len(s.Points) == 0 {
			continue
		}
		xys := make(plotter.XYs, len(s.Points))
		for j, pt := range s.Points {
			xys[j] = plotter.XY{X: pt.X, Y: pt.Y}
		}
		l, sc, err := plotter.NewLinePoints(xys)
		if err != nil {
			return err
		}
		l.Color, sc.Color = plotutil.Color(i), plotutil.Color(i)
		l.Dashes = plotutil.Dashes(i)
		sc.Shape = plotutil.Shape(i)
		sc.Radius = vg.Points(3)
		p.Add(l, sc)
		p.Legend.Add(s.Name, l, sc)
	}
	// Points clear of the frame on both sides.
	pad := p.X.Max * 0.04
	p.X.Min, p.X.Max = -pad, p.X.Max+pad
	return nil
}

func (c *chart) addBars(p *plot.Plot) error {
	w := vg.Points(36)
	for i, s := range c.Series {
		bars, err := plotter.NewBarChart(plotter.Values(s.Values), w)
		if err != nil {
			return err
		}
		bars.Color = plotutil.Color(i)
		bars.LineStyle.Width = 0
		bars.Offset = w * (vg.Length(i) - vg.Length(len(c.Series)-1)/2)
		p.Add(bars)
		p.Legend.Add(s.Name, bars)
		// Each bar's value above it, as the tables print it.
		lb := plotter.XYLabels{}
		for j, v := range s.Values {
			lb.XYs = append(lb.XYs, plotter.XY{X: float64(j), Y: v})
			lb.Labels = append(lb.Labels, fmtNum(v))
		}
		labels, err := plotter.NewLabels(lb)
		if err != nil {
			return err
		}
		for k := range labels.TextStyle {
			labels.TextStyle[k].XAlign = -0.5
			labels.TextStyle[k].Font.Size = vg.Points(8)
		}
		labels.Offset = vg.Point{X: bars.Offset, Y: vg.Points(2)}
		p.Add(labels)
	}
	p.NominalX(c.Groups...)
	p.X.Min, p.X.Max = -0.5, float64(len(c.Groups))-0.5
	return nil
}

// chartLinks are the Markdown image lines of BENCHMARKS.md, relative to
// the report's directory.
func chartLinks(out, dir string, cs []chart) []string {
	rel, err := filepath.Rel(filepath.Dir(out), dir)
	if err != nil {
		rel = dir
	}
	var lines []string
	for _, c := range cs {
		alt := strings.ReplaceAll(c.Title, "]", ")")
		lines = append(lines, fmt.Sprintf("![%s](%s)", alt, filepath.ToSlash(filepath.Join(rel, c.File))))
	}
	return lines
}
