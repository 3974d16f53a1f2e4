package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestCostText(t *testing.T) {
	tests := []struct {
		usd  float64
		want string
	}{
		{0, "0.00"},
		{0.00003, "0.0000300"},
		{0.024, "0.0240"},
		{0.5, "0.500"},
		{4.938268, "4.94"},
		{200, "200.00"},
		{12345.678, "12345.68"},
	}
	for _, tt := range tests {
		if got := costText(tt.usd); got != tt.want {
			t.Errorf("costText(%v): got %q, want %q", tt.usd, got, tt.want)
		}
	}
}

// TestDryRunPrint: the cost of each kind of request is its count times the
// price per 10,000 transactions, the default price when --price is not
// given, and the line under the table says which price it was and, for the
// default, where it comes from.
func TestDryRunPrint(t *testing.T) {
	plan := requestPlan{pages: 100, transactions: 500, txOps: 50000, singles: 0}
	tests := []struct {
		name  string
		price priceValue
		rows  map[string]string // a row's first word: its cost
		note  []string          // in the line under the table
	}{
		{"default price", -1,
			map[string]string{"query": "0.00000500", "transactions": "0.0000250", "single": "0.00", "total": "0.0000300"},
			[]string{"$0.0005 per 10,000 transactions", "performance and scalability checklist", "$0.01 per 200,000", "region, redundancy and date", "--price"}},
		{"given price", 4,
			map[string]string{"query": "0.0400", "transactions": "0.200", "single": "0.00", "total": "0.240"},
			[]string{"$4 per 10,000 transactions (--price)"}},
		{"free", 0,
			map[string]string{"query": "0.00", "transactions": "0.00", "total": "0.00"},
			[]string{"$0 per 10,000 transactions (--price)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := plan.print(&b, "copy", tt.price); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			for _, line := range strings.Split(out, "\n") {
				f := strings.Fields(line)
				if len(f) < 3 {
					continue
				}
				if want, ok := tt.rows[f[0]]; ok {
					if got := f[len(f)-1]; got != want {
						t.Errorf("%s row: got cost %s, want %s\n%s", f[0], got, want, out)
					}
					delete(tt.rows, f[0])
				}
			}
			if len(tt.rows) > 0 {
				t.Errorf("rows not found: %v\n%s", tt.rows, out)
			}
			for _, n := range tt.note {
				if !strings.Contains(out, n) {
					t.Errorf("got no %q in\n%s", n, out)
				}
			}
			if tt.price >= 0 && strings.Contains(out, "checklist") {
				t.Errorf("a given price printed with the default's source:\n%s", out)
			}
		})
	}
}
