// Package link lets package table hand sibling packages what they need of a
// *table.Table[T] without exporting it to users. Package table registers
// the lookups in its init, before any other code can hold a table.
package link

import "github.com/Azure/azure-sdk-for-go/sdk/azcore/tracing"

// tracerOf is set once, by table's init, and only read after that.
var tracerOf func(t any) tracing.Tracer

// SetTracerLookup is for package table's init only.
func SetTracerLookup(f func(t any) tracing.Tracer) { tracerOf = f }

// Tracer is the tracer of t, a *table.Table[T]: disabled when t has none
// (no TracingProvider, or a table from table.Wrap) or is not a table.
func Tracer(t any) tracing.Tracer {
	if tracerOf == nil {
		return tracing.Tracer{}
	}
	return tracerOf(t)
}

// fastOf is set once, by table's init, and only read after that.
var fastOf func(t any) (endpoint string, fast bool)

// SetFastLookup is for package table's init only.
func SetFastLookup(f func(t any) (endpoint string, fast bool)) { fastOf = f }

// Fast reports whether t, a *table.Table[T], was built by tablekit with the
// fast path in its pipeline, and the endpoint its aztables client builds
// request URLs from ("" when unknown: table.Wrap).
func Fast(t any) (endpoint string, fast bool) {
	if fastOf == nil {
		return "", false
	}
	return fastOf(t)
}
