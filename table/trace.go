package table

import (
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/tracing"

	"github.com/tablekit/tablekit/internal/link"
)

// tracerName names tablekit's spans' instrumentation scope, as azcore names
// each SDK module's.
const tracerName = "github.com/tablekit/tablekit"

// Packages query and batch find a table's tracer through link, so that
// Table need not export it: the interface's method is unexported, so only
// this package's types satisfy it.
func init() {
	link.SetTracerLookup(func(t any) tracing.Tracer {
		if tt, ok := t.(interface{ tracer() tracing.Tracer }); ok {
			return tt.tracer()
		}
		return tracing.Tracer{}
	})
}

func (t *Table[T]) tracer() tracing.Tracer { return t.tr }

// newTracer makes the tracer of Options.Azcore.TracingProvider: the one
// aztables' own spans come from, so tablekit's spans join the same traces.
// Without a provider it is azcore's disabled tracer, which costs nothing.
func (o *Options) newTracer() tracing.Tracer {
	if o == nil {
		return tracing.Tracer{}
	}
	return o.Azcore.TracingProvider.NewTracer(tracerName, "")
}
