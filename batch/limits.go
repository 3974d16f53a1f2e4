package batch

import (
	"fmt"

	"github.com/tablekit/tablekit/internal/txwire"
)

// Limits of one transaction (entity group transaction).
const (
	// MaxOps is the most operations one transaction may hold.
	MaxOps = txwire.MaxOps
	// MaxBodyBytes is the request body limit: a transaction's body must be
	// smaller than 4 MiB (4,194,304 bytes).
	MaxBodyBytes = txwire.MaxBody
)

// txLimits follows the operations of one transaction against the service's
// rules: at most MaxOps operations, one PartitionKey, each RowKey once, a
// body under MaxBodyBytes. Transaction refuses by it and the bulk writer
// packs by it, so both apply the same rules.
type txLimits struct {
	pk      string         // PartitionKey of the first operation
	rows    map[string]int // RowKey -> position of the operation that has it
	ops     int
	opBytes int // body bytes of the operations, without the envelope
}

// bodySize is the request body in bytes, envelope included.
func (l *txLimits) bodySize() int { return txwire.Envelope() + l.opBytes }

// checkCount is the rule that needs no encoded operation, so that a
// Transaction reports ErrTooManyOps before encoding the 101st operation.
func (l *txLimits) checkCount() error {
	if l.ops >= MaxOps {
		return ErrTooManyOps
	}
	return nil
}

// check returns the rule that adding enc would break, or nil.
func (l *txLimits) check(enc *encoded) error {
	if err := l.checkCount(); err != nil {
		return err
	}
	if l.ops > 0 && enc.pk != l.pk {
		return fmt.Errorf("%w: operation 0 is on another partition", ErrMixedPartitions)
	}
	if j, dup := l.rows[enc.rk]; dup {
		return fmt.Errorf("%w: operation %d has it too", ErrDuplicateRowKey, j)
	}
	if size := l.bodySize() + enc.size; size >= MaxBodyBytes {
		return fmt.Errorf("%w: the body would have %d bytes (the limit is %d, exclusive)", ErrBodyTooLarge, size, MaxBodyBytes)
	}
	return nil
}

// add counts enc in; check it first.
func (l *txLimits) add(enc *encoded) {
	if l.rows == nil {
		l.rows = map[string]int{}
	}
	if l.ops == 0 {
		l.pk = enc.pk
	}
	l.rows[enc.rk] = l.ops
	l.ops++
	l.opBytes += enc.size
}

// fullSlack: the bulk writer closes a transaction with less room than
// this. The smallest operation (a Delete with one-character keys) takes
// about 300 bytes.
const fullSlack = 1 << 10

// full reports a transaction that no further operation is likely to fit.
func (l *txLimits) full() bool {
	return l.ops >= MaxOps || MaxBodyBytes-l.bodySize() <= fullSlack
}
