package main

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"
)

// Report is everything BENCHMARKS.md says, rendered by Markdown.
type Report struct {
	Title    string
	Intro    []string // paragraphs under the title
	Env      [][2]string
	Method   []string // bullet points: how the numbers were taken
	Targets  []Target
	Charts   []string // Markdown image lines, under Charts
	Sections []Section
}

// Section is one scenario group: text, then tables.
type Section struct {
	Title  string
	Text   []string
	Tables []Table
}

// Table is a Markdown table with an optional caption and notes under it.
type Table struct {
	Caption string
	Header  []string
	Rows    [][]string
	Left    int // columns aligned left; 0 means 1
	Notes   []string
}

// Status is a target's outcome.
type Status int

const (
	NotMeasured Status = iota
	Pass
	Fail
)

func (s Status) String() string {
	switch s {
	case Pass:
		return "PASS"
	case Fail:
		return "FAIL"
	}
	return "not measured"
}

// Target is one of the targets, checked against this run.
type Target struct {
	Name string // what is compared
	Want string // the target, e.g. ">= 0.9x"
	Got  string // the measured value
	Status
	Why string // for a miss (or not measured): the reason, from the data
}

// ratioTarget checks got >= want (or <= want when atMost), for ratios.
func ratioTarget(name string, got, want float64, atMost bool) Target {
	t := Target{Name: name}
	if atMost {
		t.Want = "<= " + fmtRatio(want)
	} else {
		t.Want = ">= " + fmtRatio(want)
	}
	if math.IsNaN(got) || math.IsInf(got, 0) {
		t.Got = "n/a"
		return t
	}
	t.Got = fmtRatio(got)
	// Compare the printed values, so that a printed 0.90x never fails >= 0.9x.
	g := roundRatio(got)
	if (!atMost && g >= want) || (atMost && g <= want) {
		t.Status = Pass
	} else {
		t.Status = Fail
	}
	return t
}

func roundRatio(r float64) float64 {
	switch {
	case r >= 100:
		return math.Round(r)
	case r >= 10:
		return math.Round(r*10) / 10
	}
	return math.Round(r*100) / 100
}

// fmtRatio prints a ratio with 2 decimals below 10, 1 below 100, else none.
func fmtRatio(r float64) string {
	switch {
	case math.IsNaN(r) || math.IsInf(r, 0):
		return "n/a"
	case r >= 100:
		return fmt.Sprintf("%.0fx", r)
	case r >= 10:
		return fmt.Sprintf("%.1fx", r)
	}
	return fmt.Sprintf("%.2fx", r)
}

// fmtNum prints n with thousands separators and sensible precision.
func fmtNum(n float64) string {
	switch {
	case math.IsNaN(n) || math.IsInf(n, 0):
		return "n/a"
	case math.Abs(n) >= 100 || n == math.Trunc(n):
		return group(fmt.Sprintf("%.0f", n))
	case math.Abs(n) >= 10:
		return fmt.Sprintf("%.1f", n)
	}
	return fmt.Sprintf("%.2f", n)
}

// fmtInt prints n with thousands separators.
func fmtInt(n int) string { return group(fmt.Sprint(n)) }

// fmtDur prints a duration the way the report's prose does: "20 ms".
func fmtDur(d time.Duration) string {
	if d%time.Second == 0 {
		return fmt.Sprintf("%d s", d/time.Second)
	}
	return fmt.Sprintf("%d ms", d.Milliseconds())
}

// plural returns "1 round", "3 rounds".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func group(s string) string {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// Markdown writes the report.
func (r *Report) Markdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", r.Title)
	for _, p := range r.Intro {
		fmt.Fprintf(&b, "%s\n\n", p)
	}
	if len(r.Env) > 0 {
		b.WriteString("## Environment\n\n")
		env := Table{Header: []string{"", ""}, Left: 2}
		for _, kv := range r.Env {
			env.Rows = append(env.Rows, []string{kv[0], kv[1]})
		}
		writeTable(&b, env)
	}
	if len(r.Method) > 0 {
		b.WriteString("## How the numbers were taken\n\n")
		for _, m := range r.Method {
			fmt.Fprintf(&b, "- %s\n", m)
		}
		b.WriteString("\n")
	}
	if len(r.Targets) > 0 {
		b.WriteString("## Targets\n\n")
		var pass, fail, na int
		t := Table{Header: []string{"Target", "Wanted", "Measured", "Result"}, Left: 1}
		for _, tg := range r.Targets {
			switch tg.Status {
			case Pass:
				pass++
			case Fail:
				fail++
			default:
				na++
			}
			t.Rows = append(t.Rows, []string{tg.Name, tg.Want, tg.Got, "**" + tg.Status.String() + "**"})
		}
		fmt.Fprintf(&b, "%d passed, %d failed, %d not measured.\n\n", pass, fail, na)
		writeTable(&b, t)
		var why []string
		for _, tg := range r.Targets {
			if tg.Status != Pass && tg.Why != "" {
				why = append(why, fmt.Sprintf("- **%s** (%s, wanted %s): %s", tg.Name, tg.Got, tg.Want, tg.Why))
			}
		}
		if len(why) > 0 {
			head := "Why the misses happen:"
			if na > 0 {
				head = "Why the misses happen, and why targets were not measured:"
			}
			b.WriteString(head + "\n\n")
			b.WriteString(strings.Join(why, "\n"))
			b.WriteString("\n\n")
		}
	}
	if len(r.Charts) > 0 {
		b.WriteString("## Charts\n\nThe medians of the tables below, drawn by `make bench` from the same samples (saved beside the charts as results.json; `go run ./devtools/cmd/bench -charts-from docs/bench/results.json` draws them again). Each chart names what was measured, the machine and the date.\n\n")
		for _, c := range r.Charts {
			fmt.Fprintf(&b, "%s\n\n", c)
		}
	}
	for _, s := range r.Sections {
		fmt.Fprintf(&b, "## %s\n\n", s.Title)
		for _, p := range s.Text {
			fmt.Fprintf(&b, "%s\n\n", p)
		}
		for _, t := range s.Tables {
			writeTable(&b, t)
		}
	}
	_, err := io.WriteString(w, strings.TrimRight(b.String(), "\n")+"\n")
	return err
}

func writeTable(b *strings.Builder, t Table) {
	if t.Caption != "" {
		fmt.Fprintf(b, "%s\n\n", t.Caption)
	}
	row := func(cells []string) {
		b.WriteString("|")
		for i := range t.Header {
			c := ""
			if i < len(cells) {
				c = strings.ReplaceAll(cells[i], "|", `\|`)
			}
			fmt.Fprintf(b, " %s |", c)
		}
		b.WriteString("\n")
	}
	row(t.Header)
	b.WriteString("|")
	for i := range t.Header {
		if i < max(1, t.Left) {
			b.WriteString(" --- |")
		} else {
			b.WriteString(" ---: |")
		}
	}
	b.WriteString("\n")
	for _, r := range t.Rows {
		row(r)
	}
	b.WriteString("\n")
	for _, n := range t.Notes {
		fmt.Fprintf(b, "%s\n\n", n)
	}
}
