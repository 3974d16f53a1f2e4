package main

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		in   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{3}, 3},
		{[]float64{5, 1, 3}, 3},
		{[]float64{4, 1, 3, 2}, 2.5},
	} {
		if got := median(tc.in); got != tc.want {
			t.Errorf("median(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestPairedCPU(t *testing.T) {
	// CPU per entity: n = 1, so each sample's cpu in µs is its cost.
	us := func(xs ...float64) []sample {
		ss := make([]sample, len(xs))
		for i, x := range xs {
			ss[i] = sample{n: 1, cpu: time.Duration(x * float64(time.Microsecond))}
		}
		return ss
	}
	for _, tc := range []struct {
		name     string
		num, den []sample
		want     float64
	}{
		// Round by round 2, 1, 1.25: the median of those, where the
		// medians' ratio (10/10) would be 1.
		{"paired", us(20, 10, 5), us(10, 10, 4), 1.25},
		{"one round", us(9), us(6), 1.5},
		// Rounds that do not pair: the ratio of the medians.
		{"unpaired", us(20, 10, 5), us(10, 8), 10.0 / 9},
	} {
		b := &bench{res: map[string][]sample{"num": tc.num, "den": tc.den}}
		if got := b.pairedCPU("num", "den"); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%s: pairedCPU = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestRatioTarget(t *testing.T) {
	for _, tc := range []struct {
		got, want float64
		atMost    bool
		status    Status
		printed   string
	}{
		{1.2, 0.9, false, Pass, "1.20x"},
		{0.899, 0.9, false, Pass, "0.90x"}, // printed as 0.90x: never "0.90x FAIL >= 0.90x"
		{0.894, 0.9, false, Fail, "0.89x"},
		{0.05, 0.10, true, Pass, "0.05x"},
		{0.22, 0.10, true, Fail, "0.22x"},
		{120, 100, false, Pass, "120x"},
		{66, 100, false, Fail, "66.0x"},
		{math.NaN(), 1, false, NotMeasured, "n/a"},
		{math.Inf(1), 1, false, NotMeasured, "n/a"},
	} {
		tg := ratioTarget("x", tc.got, tc.want, tc.atMost)
		if tg.Status != tc.status || tg.Got != tc.printed {
			t.Errorf("ratioTarget(%v, %v, atMost=%v) = %s %s, want %s %s", tc.got, tc.want, tc.atMost, tg.Got, tg.Status, tc.printed, tc.status)
		}
	}
}

func TestFormatting(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{fmtNum(1234567.4), "1,234,567"},
		{fmtNum(-1234), "-1,234"},
		{fmtNum(123), "123"},
		{fmtNum(12.34), "12.3"},
		{fmtNum(1.234), "1.23"},
		{fmtNum(0), "0"},
		{fmtNum(64), "64"},
		{fmtNum(44.5), "44.5"},
		{fmtNum(math.NaN()), "n/a"},
		{fmtInt(50000), "50,000"},
		{fmtInt(300), "300"},
		{fmtRatio(0.5), "0.50x"},
		{fmtRatio(12.34), "12.3x"},
		{fmtDur(20 * time.Millisecond), "20 ms"},
		{fmtDur(2 * time.Second), "2 s"},
		{plural(1, "round"), "1 round"},
		{plural(3, "round"), "3 rounds"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

func TestMarkdown(t *testing.T) {
	r := &Report{
		Title:  "Benchmarks",
		Intro:  []string{"Intro."},
		Env:    [][2]string{{"Go", "go1.26"}},
		Method: []string{"Medians."},
		Targets: []Target{
			{Name: "a", Want: ">= 1.00x", Got: "2.00x", Status: Pass},
			{Name: "b", Want: ">= 3.00x", Got: "1.50x", Status: Fail, Why: "Azurite is one core."},
			{Name: "c", Want: "fewer", Got: "n/a"},
		},
		Charts: []string{"![Scan](docs/bench/scan-latency.svg)"},
		Sections: []Section{{
			Title: "Scan",
			Text:  []string{"Text."},
			Tables: []Table{{
				Caption: "Local:",
				Header:  []string{"Scenario", "entities/s"},
				Rows:    [][]string{{"plain | pager", "9,000"}},
				Notes:   []string{"Note."},
			}},
		}},
	}
	var b strings.Builder
	if err := r.Markdown(&b); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	for _, want := range []string{
		"# Benchmarks\n\nIntro.\n\n## Environment\n\n|  |  |\n| --- | --- |\n| Go | go1.26 |\n",
		"## How the numbers were taken\n\n- Medians.\n",
		"1 passed, 1 failed, 1 not measured.",
		"| Target | Wanted | Measured | Result |\n| --- | ---: | ---: | ---: |\n",
		"| a | >= 1.00x | 2.00x | **PASS** |",
		"| b | >= 3.00x | 1.50x | **FAIL** |",
		"| c | fewer | n/a | **not measured** |",
		"- **b** (1.50x, wanted >= 3.00x): Azurite is one core.",
		"## Charts\n\nThe medians of the tables below",
		"![Scan](docs/bench/scan-latency.svg)\n\n## Scan\n\nText.\n\nLocal:\n\n| Scenario | entities/s |\n| --- | ---: |\n| plain \\| pager | 9,000 |\n\nNote.\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("report lacks %q:\n%s", want, got)
		}
	}
	if !strings.HasSuffix(got, "Note.\n") || strings.HasSuffix(got, "\n\n") {
		t.Errorf("report should end with one newline:\n%q", got[len(got)-20:])
	}
}

// The report of a run without samples renders every target as not measured
// (never NaN or a panic).
func TestEmptyReport(t *testing.T) {
	b := &bench{cfg: quickConfig(), res: map[string][]sample{}}
	r := b.report(&envInfo{date: time.Now()}, map[string][]overheadObs{})
	var sb strings.Builder
	if err := r.Markdown(&sb); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(sb.String(), "NaN") {
		t.Errorf("NaN in report:\n%s", sb.String())
	}
	for _, tg := range r.Targets {
		if tg.Status != NotMeasured {
			t.Errorf("target %q: %s without samples", tg.Name, tg.Status)
		}
	}
}
