package batch

import (
	"context"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/tracing"

	"github.com/tablekit/tablekit/internal/core"
	"github.com/tablekit/tablekit/internal/spans"
	"github.com/tablekit/tablekit/table"
)

// Span names: a Write (or WriteSeq), each transaction it sends, and a
// Transaction submitted on its own.
const (
	spanWrite       = "batch.Write"
	spanWriteSeq    = "batch.WriteSeq"
	spanTransaction = "batch.transaction"
	spanSubmit      = "batch.Transaction.Submit"
)

// startWrite starts the span of a Write, parent of its transactions' spans.
// end records the outcome and passes Write's results through.
func startWrite[T any](ctx context.Context, t *table.Table[T], name string) (_ context.Context, end func(Summary, error) (Summary, error)) {
	ctx, sp := spans.Start(ctx, (*core.Table)(t).Tracer(), name)
	if sp == nil {
		return ctx, passWrite
	}
	sp.Set(tracing.Attribute{Key: spans.Table, Value: t.Name()})
	return ctx, func(s Summary, err error) (Summary, error) {
		n := s.tally()
		outcome := "committed"
		if err != nil {
			outcome = "incomplete"
		}
		sp.Set(
			tracing.Attribute{Key: spans.Ops, Value: n.ops},
			tracing.Attribute{Key: spans.Committed, Value: n.committed},
			tracing.Attribute{Key: spans.Transactions, Value: n.transactions},
			tracing.Attribute{Key: spans.Retries, Value: s.Retries},
			tracing.Attribute{Key: spans.ThrottledRetries, Value: s.Throttled},
			tracing.Attribute{Key: spans.Outcome, Value: outcome},
		)
		sp.End(err)
		return s, err
	}
}

func passWrite(s Summary, err error) (Summary, error) { return s, err }

// tracedSubmit sends a chunk of a Write under a span of its own, so that
// its retries and outcome show where a slow or failed load spent its time.
func (w *writer[T]) tracedSubmit(c *chunk[T]) (State, error) {
	ctx, sp := spans.Start(w.ctx, (*core.Table)(w.enc.t).Tracer(), spanTransaction)
	state, err := w.submit(ctx, c)
	if sp != nil {
		attempts := sp.Attempts()
		if state == NotSent {
			attempts = 0
		}
		sp.Set(txAttrs(c.pk, len(c.positions), c.lim.bodySize(), attempts, state)...)
		sp.End(err)
	}
	return state, err
}

// startSubmit starts the span of Transaction.Submit; end records the
// outcome and passes Submit's results through.
func (tx *Transaction[T]) startSubmit(ctx context.Context) (_ context.Context, end func([]OpResult, error) ([]OpResult, error)) {
	ctx, sp := spans.Start(ctx, (*core.Table)(tx.enc.t).Tracer(), spanSubmit)
	if sp == nil {
		return ctx, passSubmit
	}
	return ctx, func(res []OpResult, err error) ([]OpResult, error) {
		state := Committed
		switch {
		case err != nil && mayHaveCommitted(err):
			state = Unknown
		case err != nil:
			state = Failed
		}
		sp.Set(txAttrs(tx.lim.pk, len(tx.wire), tx.lim.bodySize(), sp.Attempts(), state)...)
		sp.End(err)
		return res, err
	}
}

func passSubmit(res []OpResult, err error) ([]OpResult, error) { return res, err }

func txAttrs(pk string, ops, bytes, attempts int, state State) []tracing.Attribute {
	return []tracing.Attribute{
		{Key: spans.Partition, Value: pk},
		{Key: spans.Ops, Value: ops},
		{Key: spans.Bytes, Value: bytes},
		{Key: spans.Attempts, Value: attempts},
		{Key: spans.Outcome, Value: state.String()},
	}
}
