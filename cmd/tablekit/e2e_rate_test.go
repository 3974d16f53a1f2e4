package main

import (
	"fmt"
	"testing"
	"time"

	"github.com/tablekit/tablekit/devtools/faults"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/table"
)

func TestRateOptions(t *testing.T) {
	tests := []struct {
		flag          string
		wantNil       bool
		wantRate      float64
		wantPartition float64
	}{
		{"0", false, 0, -1},
		{"1500", false, 1500, 0},
		{"0.5", false, 0.5, 0},
		{"-1", true, 0, 0},
	}
	for _, tt := range tests {
		var r rateValue
		if err := r.Set(tt.flag); err != nil {
			t.Fatalf("--rate %s: %v", tt.flag, err)
		}
		var got *table.Rate = r.options(new(retryCount))
		if (got == nil) != tt.wantNil {
			t.Fatalf("--rate %s: got %+v, want nil %v", tt.flag, got, tt.wantNil)
		}
		if got != nil && (got.EntitiesPerSecond != tt.wantRate || got.PartitionEntitiesPerSecond != tt.wantPartition || got.OnChange == nil) {
			t.Errorf("--rate %s: got %+v, want rate %v, partition %v and a hook", tt.flag, got, tt.wantRate, tt.wantPartition)
		}
	}
	for _, bad := range []string{"-2", "NaN", "+Inf", "fast", ""} {
		var r rateValue
		if err := r.Set(bad); err == nil {
			t.Errorf("--rate %q: got no error", bad)
		}
	}
}

func TestRateProgress(t *testing.T) {
	c := new(retryCount)
	if got := c.limit(); got != "" {
		t.Errorf("before a rate: got %q, want none", got)
	}
	c.rateChanged(table.RateEvent{EntitiesPerSecond: 1234.4})
	if got, want := c.limit(), ", limited to 1234/s"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestE2ERate: --rate is refused with exit status 2 before any request
// when it is not a rate, and a run with a cap copies everything.
func TestE2ERate(t *testing.T) {
	az := testenv.Azurite(t)
	cs := az.ConnectionString
	for _, args := range [][]string{
		{"count", "t", "--rate", "-3"},
		{"delete", "t", "--partition", "p", "--yes", "--rate", "NaN"},
		{"copy", "a", "b", "--rate", "many"},
		{"import", "t", "in.jsonl", "--rate", "Inf"},
	} {
		wantCode(t, tk(t, cs, args...), exitUsage, args[0]+" --rate "+args[len(args)-1])
	}
	src := seed(t, az, partitionKeys("p%02d", 3), 100)
	dst := testenv.TableName(t)
	t.Cleanup(func() { dropTable(t, cs, dst) })
	wantCode(t, tk(t, cs, "copy", src, dst, "--rate", "5000"), exitOK, "copy --rate 5000")
	if got, want := count(t, cs, dst, "--rate", "-1"), 300; got != want {
		t.Errorf("copied %d entities, want %d", got, want)
	}
}

// TestE2ECopyRateCap: a copy into another account with --rate N sends the
// target no more than N entities, plus the limiter's bucket and 100 ms of
// arrival jitter, in any one-second window after the first, as the proxy in
// front of the target counts them; and it keeps about N while it writes.
func TestE2ECopyRateCap(t *testing.T) {
	const capRate = 1000
	az := testenv.Azurite(t)
	viaProxy, px := proxied(t, az)
	perPartition := 1000
	if testing.Short() {
		perPartition = 800
	}
	src := seed(t, az, partitionKeys("p%02d", 3), perPartition)
	n := 3 * perPartition
	dst := testenv.TableName(t)
	t.Cleanup(func() { dropTable(t, az.ConnectionString, dst) })
	// Created beforehand, so that the proxy sees the copy's writes alone.
	wantCode(t, tk(t, az.ConnectionString, "create", dst), exitOK, "create")
	// The proxy only counts: a scheduling delay that bunches arrivals must
	// not turn into throttling and retries.
	px.SetCapacity(&faults.Capacity{EntitiesPerSecond: 1e6})
	env := append(childEnv(az.ConnectionString), envTargetConnection+"="+viaProxy)
	r := tkEnv(t, env, "copy", src, dst, "--create=false", "--rate", fmt.Sprint(capRate))
	wantCode(t, r, exitOK, "copy --rate")
	writes := px.Arrivals()
	total := 0
	for _, a := range writes {
		total += a.Entities
	}
	if total != n {
		t.Fatalf("the proxy counted %d entities in transactions, want %d", total, n)
	}
	got, at := faults.Busiest(writes, time.Second, time.Second)
	t.Logf("busiest second after the first: %d entities, from %v", got, at)
	if want := capRate + 100 + capRate/10; got > want {
		t.Errorf("got %d entities in the second from %v, want at most %d", got, at, want)
	}
	span := writes[len(writes)-1].At - writes[0].At
	if min := time.Duration(float64(n-capRate) / capRate * 0.9 * float64(time.Second)); span < min {
		t.Errorf("got %d entities written in %v, want at least %v at the cap of %d/s", n, span, min, capRate)
	}
	if got := count(t, az.ConnectionString, dst, "--rate", "-1"); got != n {
		t.Errorf("copied %d entities, want %d", got, n)
	}
}
