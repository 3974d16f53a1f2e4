package testenv

import "testing"

func TestRepeatedPrefix(t *testing.T) {
	tests := []struct{ msg, want string }{
		{"table: invalid key: table: invalid entity: property PartitionKey: empty key", "table: "},
		{"batch: not sent: batch: operation 3 (Add) failed", "batch: "},
		{"batch: x (and then: batch: y)", "batch: "},
		{"query: a; query: b", "query: "},
		{"table: invalid key: PartitionKey: empty key", ""},
		{"batch: operation 0 (Add): table: invalid entity: property S: string is not valid UTF-8", ""},
		{"table: invalid options: query: page size 0 is outside 1..1000", ""},
		{"txwire: entity: wire: x", ""},
		{"a mytable: b table: c", ""},
		{"tablekit put: table name table name must have 3 to 63 characters", "table name "},
		{"tablekit count: tablekit: table not found", "tablekit: "},
		{"tablekit import: line 3: table: invalid key", ""},
		{"tablekit export: 1 2 1 2", ""},
		{"a b c a b d", ""},
		{"tablekit: not every operation was committed: tablekit: already exists", ""},
	}
	for _, tt := range tests {
		if got := RepeatedPrefix(tt.msg); got != tt.want {
			t.Errorf("RepeatedPrefix(%q) = %q, want %q", tt.msg, got, tt.want)
		}
	}
}
