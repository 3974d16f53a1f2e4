package main

import (
	"strings"
	"testing"
)

func TestParseShare(t *testing.T) {
	env := map[string]string{"JOB_COMPLETION_INDEX": "2", "BAD": "x", "NEG": "-1", "BIG": "4"}
	getenv := func(k string) string { return env[k] }
	tests := []struct {
		in   string
		want share
		err  string // in the error, "" for none
	}{
		{"", share{1, 1}, ""},
		{"1/1", share{1, 1}, ""},
		{"3/8", share{3, 8}, ""},
		{"env:JOB_COMPLETION_INDEX/4", share{3, 4}, ""},
		{"0/4", share{}, "want i/n"},
		{"5/4", share{}, "want i/n"},
		{"1/0", share{}, "want i/n"},
		{"1", share{}, "want i/n"},
		{"a/b", share{}, "want i/n"},
		{"env:UNSET/4", share{}, "UNSET\" is not set"},
		{"env:/4", share{}, "is not set"},
		{"env:BAD/4", share{}, "want a 0-based index, 0 to 3"},
		{"env:NEG/4", share{}, "want a 0-based index"},
		{"env:BIG/4", share{}, "BIG is \"4\""},
		{"env:JOB_COMPLETION_INDEX", share{}, "want i/n"},
	}
	for _, tt := range tests {
		got, err := parseShare(tt.in, getenv)
		if got != tt.want || (err == nil) != (tt.err == "") || (err != nil && !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("parseShare(%q) = %v, %v; want %v, error with %q", tt.in, got, err, tt.want, tt.err)
		}
	}
}

// TestPlanCheck refuses plans that do not fit the run before any request.
func TestPlanCheck(t *testing.T) {
	good := sharePlan{Version: planVersion, Table: "t", Split: "PartitionKey", Shares: 3, Bounds: []string{"b", "m"}}
	tests := []struct {
		name string
		edit func(*sharePlan)
		sh   share
		err  string
	}{
		{"good", func(*sharePlan) {}, share{2, 3}, ""},
		{"empty shares", func(p *sharePlan) { p.Bounds = []string{"", ""} }, share{1, 3}, ""},
		{"version", func(p *sharePlan) { p.Version = 9 }, share{1, 3}, "version 9"},
		{"table", func(p *sharePlan) { p.Table = "u" }, share{1, 3}, "of table u"},
		{"scope", func(p *sharePlan) { p.Prefix = "x" }, share{1, 3}, "--prefix \"x\""},
		{"shares", func(*sharePlan) {}, share{1, 4}, "has 3 shares, not 4"},
		{"bounds", func(p *sharePlan) { p.Bounds = []string{"m", "b"} }, share{1, 3}, "out of order"},
		{"count", func(p *sharePlan) { p.Bounds = []string{"m"} }, share{1, 3}, "1 bounds for 3 shares"},
		{"split", func(p *sharePlan) { p.Split = "RowKey" }, share{1, 3}, "splits RowKey"},
	}
	for _, tt := range tests {
		p := good
		p.Bounds = append([]string(nil), good.Bounds...)
		tt.edit(&p)
		err := p.check("f", "t", "", "", tt.sh)
		if (err == nil) != (tt.err == "") || (err != nil && !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("%s: got %v, want an error with %q", tt.name, err, tt.err)
		}
	}
	// The shares of a plan tile the key space: each bound ends one share
	// and starts the next.
	p := good
	if r := p.of(share{1, 3}); r.Lo != "" || !r.HasHi || r.Hi != "b" {
		t.Errorf("share 1: got %+v", r)
	}
	if r := p.of(share{3, 3}); r.Lo != "m" || r.HasHi {
		t.Errorf("share 3: got %+v", r)
	}
}
