package batch

import (
	"context"
	"errors"
	"testing"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/devtools/testenv"
)

// TestErrorfSaysPrefixOnce: the wrappers of this package say "batch: "
// once, whatever they wrap, and keep every wrapped error reachable.
func TestErrorfSaysPrefixOnce(t *testing.T) {
	inner := &tablekit.ValidationError{Operation: "transaction", Index: 3, Rule: "r"}
	for _, c := range []struct {
		err     error
		want    string
		is      []error
		invalid bool // errors.As finds the *tablekit.ValidationError
	}{
		{errorf("%w: %w", errNotSent, inner), "batch: not sent: tablekit: invalid transaction: operation 3: r", []error{errNotSent, tablekit.ErrInvalid}, true},
		{errorf("%w: %d of %d operations committed: %w (and then: %w)", tablekit.ErrIncomplete, 1, 2, inner, context.Canceled),
			"tablekit: not every operation was committed: 1 of 2 operations committed: tablekit: invalid transaction: operation 3: r (and then: context canceled)",
			[]error{tablekit.ErrIncomplete, tablekit.ErrInvalid, context.Canceled}, true},
		{errorf("%w; an earlier attempt may have committed: %w", inner, errors.New("batch: x")),
			"tablekit: invalid transaction: operation 3: r; an earlier attempt may have committed: batch: x", []error{tablekit.ErrInvalid}, true},
		{errorf("%w: %w", errNotSent, tablekit.ErrNotFound), "batch: not sent: tablekit: entity not found", []error{errNotSent, tablekit.ErrNotFound}, false},
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
		var ie *tablekit.ValidationError
		if got := errors.As(c.err, &ie); got != c.invalid {
			t.Errorf("%v: errors.As finds an *tablekit.ValidationError: %v, want %v", c.err, got, c.invalid)
		}
	}
}
