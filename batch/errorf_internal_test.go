package batch

import (
	"context"
	"errors"
	"testing"

	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/table"
)

// TestErrorfSaysPrefixOnce: the wrappers of this package say "batch: "
// once, whatever they wrap, and keep every wrapped error reachable.
func TestErrorfSaysPrefixOnce(t *testing.T) {
	inner := &InvalidError{Index: 3, Kind: Add, Err: ErrTooManyOps}
	for _, c := range []struct {
		err     error
		want    string
		is      []error
		invalid bool // errors.As finds the *InvalidError
	}{
		{errorf("%w: %w", ErrNotSent, inner), "batch: not sent: operation 3 (Add): too many operations in one transaction", []error{ErrNotSent, ErrTooManyOps}, true},
		{errorf("%w: %d of %d operations committed: %w (and then: %w)", ErrIncomplete, 1, 2, inner, context.Canceled),
			"batch: not every operation was committed: 1 of 2 operations committed: operation 3 (Add): too many operations in one transaction (and then: context canceled)",
			[]error{ErrIncomplete, ErrTooManyOps, context.Canceled}, true},
		{errorf("%w; an earlier attempt may have committed: %w", inner, errors.New("batch: x")),
			"batch: operation 3 (Add): too many operations in one transaction; an earlier attempt may have committed: x", []error{ErrTooManyOps}, true},
		{errorf("%w: %w", ErrNotSent, table.ErrNotFound), "batch: not sent: table: entity not found", []error{ErrNotSent, table.ErrNotFound}, false},
	} {
		if got := c.err.Error(); got != c.want {
			t.Errorf("got  %q\nwant %q", got, c.want)
		}
		if p := testenv.RepeatedPrefix(c.err.Error()); p != "" {
			t.Errorf("%q says %q twice", c.err, p)
		}
		for _, target := range c.is {
			if !errors.Is(c.err, target) {
				t.Errorf("%v does not match %v", c.err, target)
			}
		}
		var ie *InvalidError
		if got := errors.As(c.err, &ie); got != c.invalid {
			t.Errorf("%v: errors.As finds an *InvalidError: %v, want %v", c.err, got, c.invalid)
		}
	}
}
