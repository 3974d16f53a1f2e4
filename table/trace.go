package table

import (
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/tracing"
)

// tracerName names tablekit's spans' instrumentation scope, as azcore names
// each SDK module's.
const tracerName = "github.com/tablekit/tablekit"

// newTracer makes the tracer of Options.Azcore.TracingProvider: the one
// aztables' own spans come from, so tablekit's spans join the same traces.
// It starts the spans of tablekit's requests (named as aztables names its
// own: Client.GetEntity, Client.SubmitTransaction, ...) and those of
// packages query and batch. Without a provider it is azcore's disabled
// tracer, which costs nothing.
func (o *Options) newTracer() tracing.Tracer {
	if o == nil {
		return tracing.Tracer{}
	}
	return o.Azcore.TracingProvider.NewTracer(tracerName, "")
}
