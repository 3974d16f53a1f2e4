package wire

import (
	"strings"
	"testing"
)

func TestCheckTableName(t *testing.T) {
	tests := []struct{ name, want string }{
		{"abc", ""},
		{"Orders2024", ""},
		{"a" + strings.Repeat("b", 62), ""},
		{"ab", RuleTableNameLength},
		{"a" + strings.Repeat("b", 63), RuleTableNameLength},
		{"", RuleTableNameLength},
		{"1abc", RuleTableNameStart},
		{"my-table", RuleTableNameChars},
		{"tableü", RuleTableNameChars},
		{"tables", RuleTableNameReserved},
		{"Tables", RuleTableNameReserved},
	}
	for _, tt := range tests {
		if got := ruleOf(CheckTableName(tt.name)); got != tt.want {
			t.Errorf("CheckTableName(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestCheckPropertyName(t *testing.T) {
	tests := []struct{ name, want string }{
		{"Total", ""},
		{"_x1", ""},
		{"Größe", ""},
		{strings.Repeat("p", 300), ""}, // how long: the backend's to check
		{"", RulePropertyNameEmpty},
		{"PartitionKey", RulePropertyNameReserved},
		{"Timestamp", RulePropertyNameReserved},
		{"a\xff", RulePropertyNameUTF8},
		{"1abc", RulePropertyNameChars},
		{"a-b", RulePropertyNameChars},
		{"a b", RulePropertyNameChars},
	}
	for _, tt := range tests {
		if got := ruleOf(CheckPropertyName(tt.name)); got != tt.want {
			t.Errorf("CheckPropertyName(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}
