package testenv

import (
	"testing"

	"github.com/tablekit/tablekit/devtools/cosmos"
)

// Cosmos starts a Cosmos DB stand-in in front of this emulator (see
// devtools/cosmos) and closes it when the test ends. o may be nil.
func (e *Env) Cosmos(tb testing.TB, o *cosmos.Options) *cosmos.Server {
	tb.Helper()
	cs, err := cosmos.Start(e.Endpoint, o)
	if err != nil {
		tb.Fatalf("cosmos stand-in: %v", err)
	}
	tb.Cleanup(func() { _ = cs.Close() })
	return cs
}
