package testenv

import (
	"strings"
	"testing"

	"github.com/tablekit/tablekit/devtools/faults"
)

// Proxied is Azurite (as Azurite gives it) behind a fault and latency
// proxy of its own, closed when the test ends: connect to
// px.Endpoint(env.Account).
func Proxied(tb testing.TB) (env *Env, px *faults.Proxy) {
	tb.Helper()
	env = Azurite(tb)
	px, err := faults.Start(strings.TrimSuffix(env.Endpoint, "/"+env.Account))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = px.Close() })
	return env, px
}
