package batch

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tablekit/tablekit"
)

// tally is a Summary counted by State: what String and the Write span report.
type tally struct {
	ops                             int // operations read (Write: all of them)
	committed, unknown, failed      int // operations
	transactions                    int // formed, invalid operations excluded
	unknownTx, failedTx, invalidOps int
}

func (s Summary) tally() tally {
	t := tally{committed: s.Ops, transactions: s.Chunks}
	for _, c := range s.Incomplete {
		var inv *tablekit.ValidationError
		if c.State == Failed && errors.As(c.Err, &inv) && len(c.Ops) == 1 {
			t.failed++
			t.invalidOps++
			continue
		}
		t.transactions++
		switch c.State {
		case Unknown:
			t.unknown += len(c.Ops)
			t.unknownTx++
		case Failed:
			t.failed += len(c.Ops)
			t.failedTx++
		}
	}
	t.ops = max(len(s.states), t.committed+t.unknown+t.failed)
	return t
}

func (t tally) notSent() int { return t.ops - t.committed - t.unknown - t.failed }

// String is a one-line account of the Write, the same length for ten
// operations or ten million; State and Incomplete have the details.
func (s Summary) String() string {
	t := s.tally()
	var b strings.Builder
	fmt.Fprintf(&b, "%s in %s", plural(t.ops, "operation"), plural(t.transactions, "transaction"))
	if t.committed == t.ops {
		b.WriteString(", all committed")
	} else {
		fmt.Fprintf(&b, ": %d committed, %d unknown", t.committed, t.unknown)
		if t.unknownTx > 0 {
			fmt.Fprintf(&b, " (%s)", plural(t.unknownTx, "transaction"))
		}
		fmt.Fprintf(&b, ", %d failed", t.failed)
		switch {
		case t.failedTx > 0 && t.invalidOps > 0:
			fmt.Fprintf(&b, " (%s, %d invalid)", plural(t.failedTx, "transaction"), t.invalidOps)
		case t.failedTx > 0:
			fmt.Fprintf(&b, " (%s)", plural(t.failedTx, "transaction"))
		case t.invalidOps > 0:
			fmt.Fprintf(&b, " (%d invalid)", t.invalidOps)
		}
		fmt.Fprintf(&b, ", %d not sent", t.notSent())
	}
	fmt.Fprintf(&b, "; %s", plural(s.Retries, "retry"))
	if s.Throttled > 0 {
		fmt.Fprintf(&b, " (%d throttled)", s.Throttled)
	}
	fmt.Fprintf(&b, " in %v", s.Duration.Round(time.Millisecond))
	return b.String()
}

// plural writes n with its noun, which takes an s unless n is 1
// ("retry" becomes "retries").
func plural(n int, noun string) string {
	switch {
	case n == 1:
		return "1 " + noun
	case strings.HasSuffix(noun, "y"):
		return fmt.Sprintf("%d %sies", n, noun[:len(noun)-1])
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
