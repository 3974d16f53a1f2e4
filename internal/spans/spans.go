// Package spans carries tablekit's own spans (a Write, a transaction, a
// query run, a page) in the context, so that code far below them, the retry
// loop above all, can add to the current one without knowing who started
// it. Everything here is a no-op, and allocates nothing, when the tracer is
// disabled (no TracingProvider configured).
package spans

import (
	"context"
	"sync/atomic"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/tracing"
)

// Attribute keys, one spelling for every package.
const (
	Table            = "tablekit.table"
	Partition        = "tablekit.partition"
	Ops              = "tablekit.ops"
	Bytes            = "tablekit.bytes"
	Attempts         = "tablekit.attempts"
	Outcome          = "tablekit.outcome"
	Transactions     = "tablekit.transactions"
	Committed        = "tablekit.committed"
	Retries          = "tablekit.retries"
	ThrottledRetries = "tablekit.throttled"
	Pages            = "tablekit.pages"
	Entities         = "tablekit.entities"
	Continuation     = "tablekit.continuation"
	Segment          = "tablekit.segment"
	Segments         = "tablekit.segments"
	Parallelism      = "tablekit.parallelism"
)

type key struct{}

// Span is a started span and the retries made while it was the current
// one. A nil *Span is valid and does nothing.
type Span struct {
	span    tracing.Span
	retries atomic.Int64
}

// Start starts a span named name as a child of the span in ctx and makes
// it the current one. With a disabled tracer it returns ctx and nil.
func Start(ctx context.Context, tr tracing.Tracer, name string) (context.Context, *Span) {
	if !tr.Enabled() {
		return ctx, nil
	}
	ctx, s := tr.Start(ctx, name, &tracing.SpanOptions{Kind: tracing.SpanKindInternal})
	sp := &Span{span: s}
	return context.WithValue(ctx, key{}, sp), sp
}

// Current is the innermost tablekit span of ctx, or nil.
func Current(ctx context.Context) *Span {
	sp, _ := ctx.Value(key{}).(*Span)
	return sp
}

// Set sets attributes. Callers build attributes only for a non-nil span,
// since building them allocates.
func (s *Span) Set(attrs ...tracing.Attribute) {
	if s != nil {
		s.span.SetAttributes(attrs...)
	}
}

// Attempts is the number of attempts so far: one, plus the retries made
// while s was current.
func (s *Span) Attempts() int {
	if s == nil {
		return 0
	}
	return 1 + int(s.retries.Load())
}

// End records err as the span's error status, if any, and ends it.
func (s *Span) End(err error) {
	if s == nil {
		return
	}
	if err != nil {
		s.span.SetStatus(tracing.SpanStatusError, err.Error())
	}
	s.span.End()
}
