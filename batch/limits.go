package batch

import (
	"github.com/tablekit/tablekit/internal/backend"
	"github.com/tablekit/tablekit/internal/errmap"
	"github.com/tablekit/tablekit/internal/txwire"
)

// MaxOps is the most operations one transaction may hold, on Table Storage
// and Cosmos DB alike.
const MaxOps = backend.TransactionOps

// txLimits follows the operations of one transaction against the rules of
// the table's backend: at most its MaxTransactionOps operations, one
// PartitionKey, each RowKey once, a body of at most its
// MaxTransactionBytes. Transaction refuses by it and the bulk writer packs
// by it, so both apply the same rules. Make it with newTxLimits.
type txLimits struct {
	prof    *backend.Profile
	pk      string         // PartitionKey of the first operation
	rows    map[string]int // RowKey -> position of the operation that has it
	ops     int
	opBytes int // body bytes of the operations, without the envelope
}

// newTxLimits starts the limits of an empty transaction on a backend.
func newTxLimits(prof *backend.Profile) txLimits { return txLimits{prof: prof} }

// bodySize is the request body in bytes, envelope included.
func (l *txLimits) bodySize() int { return txwire.Envelope() + l.opBytes }

// checkCount is the rule that needs no encoded operation, so that a
// Transaction reports tablekit.ErrInvalid before encoding one operation too many.
func (l *txLimits) checkCount() error {
	if l.ops >= l.prof.MaxTransactionOps {
		return errmap.Invalidf("transaction", "operations", "too many in one transaction (at most %d)", l.prof.MaxTransactionOps)
	}
	return nil
}

// check returns the rule that adding enc would break, or nil.
func (l *txLimits) check(enc *encoded) error {
	if err := l.checkCount(); err != nil {
		return err
	}
	if l.ops > 0 && enc.pk != l.pk {
		return errmap.Invalid("transaction", "PartitionKey", "operations on more than one PartitionKey: operation 0 is on another")
	}
	if j, dup := l.rows[enc.rk]; dup {
		return errmap.Invalidf("transaction", "RowKey", "the same RowKey twice in one transaction: operation %d has it too", j)
	}
	if size := l.bodySize() + enc.size; size > l.prof.MaxTransactionBytes {
		return errmap.Invalidf("transaction", "body", "request body too large: it would have %d bytes, the most the backend takes is %d", size, l.prof.MaxTransactionBytes)
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
	return l.ops >= l.prof.MaxTransactionOps || l.prof.MaxTransactionBytes-l.bodySize() < fullSlack
}
