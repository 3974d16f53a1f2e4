package main

import (
	"errors"
	"fmt"
	"testing"

	"github.com/tablekit/tablekit"
)

// TestMessage checks how the command prints an error: the library's
// prefix left out after the command's own, every byte printable.
func TestMessage(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{tablekit.ErrTableNotFound, "table not found"},
		{fmt.Errorf("splitting the scan: %w", tablekit.ErrTableNotFound), "splitting the scan: table not found"},
		{fmt.Errorf("line 3: %w (tablekit: invalid)", tablekit.ErrNotFound), "line 3: entity not found (invalid)"},
		{errors.New("mytablekit: stays"), "mytablekit: stays"},
		{errors.New("begins \x1f\x8b\x08\x00 and \xff\xfe"), `begins \x1f\x8b\b\x00 and \xff\xfe`},
		{errors.New("escape \x1b[31mred\x7f"), `escape \x1b[31mred\x7f`},
		{errors.New("two\nlines\tand a tab, é and ✓ kept"), "two\nlines\tand a tab, é and ✓ kept"},
	}
	for _, tt := range tests {
		if got := message(tt.err); got != tt.want {
			t.Errorf("message(%q) = %q, want %q", tt.err.Error(), got, tt.want)
		}
	}
}
