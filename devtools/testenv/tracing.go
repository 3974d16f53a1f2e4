package testenv

import (
	"context"
	"maps"
	"slices"
	"sync"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/tracing"
)

// Tracer records the spans of every tracer its Provider makes, so tests can
// check names, parents, attributes, events and status. Safe for concurrent
// use.
type Tracer struct {
	mu    sync.Mutex
	spans []*Span
}

// Span is a recorded span. ID counts from 1 in start order; Parent is the
// ID of the span it was started under, 0 for a root.
type Span struct {
	ID, Parent int
	Name       string
	Attrs      map[string]any
	Events     []Event
	Status     tracing.SpanStatus
	StatusDesc string
	Ended      bool
}

// Event is a recorded span event.
type Event struct {
	Name  string
	Attrs map[string]any
}

type spanKey struct{}

// Provider is the tracing.Provider to put in azcore.ClientOptions.
func (r *Tracer) Provider() tracing.Provider {
	return tracing.NewProvider(func(name, version string) tracing.Tracer {
		return tracing.NewTracer(r.start, &tracing.TracerOptions{SpanFromContext: r.fromContext})
	}, nil)
}

func (r *Tracer) start(ctx context.Context, name string, o *tracing.SpanOptions) (context.Context, tracing.Span) {
	r.mu.Lock()
	s := &Span{ID: len(r.spans) + 1, Name: name, Attrs: map[string]any{}}
	if p, ok := ctx.Value(spanKey{}).(*Span); ok {
		s.Parent = p.ID
	}
	if o != nil {
		for _, a := range o.Attributes {
			s.Attrs[a.Key] = a.Value
		}
	}
	r.spans = append(r.spans, s)
	r.mu.Unlock()
	return context.WithValue(ctx, spanKey{}, s), r.span(s)
}

func (r *Tracer) fromContext(ctx context.Context) tracing.Span {
	if s, ok := ctx.Value(spanKey{}).(*Span); ok {
		return r.span(s)
	}
	return tracing.Span{}
}

func (r *Tracer) span(s *Span) tracing.Span {
	return tracing.NewSpan(tracing.SpanImpl{
		End: func() { r.mu.Lock(); s.Ended = true; r.mu.Unlock() },
		SetAttributes: func(attrs ...tracing.Attribute) {
			r.mu.Lock()
			defer r.mu.Unlock()
			for _, a := range attrs {
				s.Attrs[a.Key] = a.Value
			}
		},
		AddEvent: func(name string, attrs ...tracing.Attribute) {
			e := Event{Name: name, Attrs: map[string]any{}}
			for _, a := range attrs {
				e.Attrs[a.Key] = a.Value
			}
			r.mu.Lock()
			s.Events = append(s.Events, e)
			r.mu.Unlock()
		},
		SetStatus: func(code tracing.SpanStatus, desc string) {
			r.mu.Lock()
			s.Status, s.StatusDesc = code, desc
			r.mu.Unlock()
		},
	})
}

// Spans returns copies of the spans recorded so far, in start order.
func (r *Tracer) Spans() []Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Span, len(r.spans))
	for i, s := range r.spans {
		out[i] = *s
		out[i].Attrs = maps.Clone(s.Attrs)
		out[i].Events = slices.Clone(s.Events)
	}
	return out
}

// Named returns the recorded spans called name, in start order.
func (r *Tracer) Named(name string) []Span {
	var out []Span
	for _, s := range r.Spans() {
		if s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

// Children returns the recorded spans started under the span with ID id
// and called name, in start order.
func (r *Tracer) Children(id int, name string) []Span {
	var out []Span
	for _, s := range r.Named(name) {
		if s.Parent == id {
			out = append(out, s)
		}
	}
	return out
}
