package table

import "testing"

func TestPrefixFilter(t *testing.T) {
	tests := []struct{ prefix, want string }{
		{"logs", "TableName ge 'logs' and TableName lt 'logt'"},
		{"a9", "TableName ge 'a9' and TableName lt 'a:'"},
		{"Az", "TableName ge 'Az' and TableName lt 'A{'"},
		{"o'b", "TableName ge 'o''b' and TableName lt 'o''c'"},
		{"x\uffff", "TableName ge 'x\uffff' and TableName lt 'y'"}, // nothing follows U+FFFF: carry
		{"\uffff", "TableName ge '\uffff'"},                        // no end at all
	}
	for _, tt := range tests {
		if got := prefixFilter("TableName", tt.prefix); got != tt.want {
			t.Errorf("prefixFilter(%q) = %q, want %q", tt.prefix, got, tt.want)
		}
	}
}
