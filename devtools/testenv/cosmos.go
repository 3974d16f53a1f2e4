package testenv

import (
	"testing"

	"github.com/tablekit/tablekit/devtools/cosmos"
	"github.com/tablekit/tablekit/table"
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

// CosmosService connects to the stand-in cs with this emulator's account
// and key, through cs.Client() (o's Transport is replaced; o may be nil),
// as tablekit connects to a Cosmos DB account.
func (e *Env) CosmosService(tb testing.TB, cs *cosmos.Server, o *table.Options) *table.Service {
	tb.Helper()
	var opts table.Options
	if o != nil {
		opts = *o
	}
	hc := cs.Client()
	tb.Cleanup(hc.CloseIdleConnections)
	opts.Transport = hc
	svc, err := table.NewServiceWithSharedKey(cs.Endpoint(), e.Account, e.Key, &opts)
	if err != nil {
		tb.Fatal(err)
	}
	return svc
}

// CosmosProxy starts cs's proxy (cosmos.Proxy), closed when the test ends,
// and returns the environment that makes another process, such as the
// tablekit command, reach the stand-in.
func (e *Env) CosmosProxy(tb testing.TB, cs *cosmos.Server) []string {
	tb.Helper()
	p, err := cs.StartProxy(tb.TempDir())
	if err != nil {
		tb.Fatalf("cosmos stand-in proxy: %v", err)
	}
	tb.Cleanup(func() { _ = p.Close() })
	return p.Env()
}
