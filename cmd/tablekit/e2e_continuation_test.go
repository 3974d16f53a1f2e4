package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/tablekit/tablekit/devtools/azurite"
	"github.com/tablekit/tablekit/devtools/faults"
	"github.com/tablekit/tablekit/devtools/testenv"
)

// TestE2EGarbledContinuation: count's scan reads a page whose continuation
// does not move forward again and counts right; when every continuation is
// bad it exits 1 and says it was the continuation, never a short count.
func TestE2EGarbledContinuation(t *testing.T) {
	az := testenv.Azurite(t)
	name := seed(t, az, partitionKeys("p%d", 3), 500) // 1,500: more than a page
	px, err := faults.Start(strings.TrimSuffix(az.Endpoint, "/"+az.Account))
	if err != nil {
		t.Fatal(err)
	}
	defer px.Close()
	pcs := azurite.ConnectionString(px.Endpoint(az.Account))
	reads := faults.And(faults.Method(http.MethodGet), faults.PathContains("/"+name+"()"))
	notPast := faults.GarbleContinuation(faults.ContinuationLastKey)

	px.SetRules(faults.Rule{Match: reads, Times: 1, Fault: notPast})
	if got, want := count(t, pcs, name), 1500; got != want {
		t.Errorf("count through one bad continuation: got %d, want %d", got, want)
	}
	if px.Injected() != 1 {
		t.Errorf("faults injected: got %d, want 1", px.Injected())
	}

	px.SetRules(faults.Rule{Match: reads, Fault: notPast})
	r := tk(t, pcs, "count", name)
	wantCode(t, r, exitFailed, "count through bad continuations")
	for _, want := range []string{"no usable reply", "continuation", "does not point past the page's last entity"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr does not say %q:\n%s", want, r.stderr)
		}
	}
	if strings.TrimSpace(r.stdout) != "" {
		t.Errorf("stdout %q, want no count", r.stdout)
	}
}
