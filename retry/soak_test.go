package retry_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"golang.org/x/sync/errgroup"

	"github.com/tablekit/tablekit/devtools/faults"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/retry"
)

// TestSoakUpserts sends 2,000 upserts (1,000 under -short or -race), 8 at
// a time, through a proxy that fails 10% of them with 503 ServerBusy, 3%
// with 500 OperationTimedOut, 2% by resetting the connection after Azurite
// committed, and 1% with 429 and Retry-After: 1. Every upsert must succeed, every entity must be stored
// as sent, and every injected fault must have cost exactly one retry.
func TestSoakUpserts(t *testing.T) {
	// Fewer than 1,000 would leave the 1% fault unseen too often.
	n, parallel := testenv.Size(2000, 1000), 8
	r := newRig(t)

	var mu sync.Mutex
	retriesBy := map[string]int{}
	p := retry.Policy{
		InitialInterval: 20 * time.Millisecond,
		MaxInterval:     time.Second, // still honours Retry-After: 1
		MaxAttempts:     10,          // 16% faults: ten in a row ~1e-8 per upsert
		OnRetry: func(ev retry.Event) {
			key := fmt.Sprint(ev.Status, " ", ev.Code)
			if ev.Status == 0 {
				key = "transport"
			}
			mu.Lock()
			retriesBy[key]++
			mu.Unlock()
		},
	}
	c := r.client(t, &p, noAzRetry)
	r.px.SetSeed(2024)
	r.px.SetRules(
		faults.Rule{Match: r.writes(nil), Probability: 0.10, Fault: faults.Status(http.StatusServiceUnavailable, "ServerBusy", nil)},
		faults.Rule{Match: r.writes(nil), Probability: 0.03, Fault: faults.Status(http.StatusInternalServerError, "OperationTimedOut", nil)},
		faults.Rule{Match: r.writes(nil), Probability: 0.02, Fault: faults.DropAfterForward()},
		faults.Rule{Match: r.writes(nil), Probability: 0.01, Fault: faults.Status(http.StatusTooManyRequests, "TooManyRequests", http.Header{"Retry-After": {"1"}})},
	)
	r.px.Reset()

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	start := time.Now()
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(parallel)
	for i := range n {
		g.Go(func() error {
			e := soakEntity(i)
			b, err := json.Marshal(e)
			if err != nil {
				return err
			}
			if _, err := c.UpsertEntity(gctx, b, &aztables.UpsertEntityOptions{UpdateMode: aztables.UpdateModeReplace}); err != nil {
				return fmt.Errorf("upsert %d: %w", i, err)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatalf("upserts: %v", err)
	}
	elapsed := time.Since(start)

	// Every entity present and correct, read straight from Azurite.
	pager := r.direct.NewListEntitiesPager(nil)
	seen := make(map[string]bool, n)
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			t.Fatalf("list: %v", err)
		}
		for _, raw := range page.Entities {
			var got map[string]any
			if err := json.Unmarshal(raw, &got); err != nil {
				t.Fatal(err)
			}
			var i int
			if _, err := fmt.Sscanf(got["RowKey"].(string), "r%05d", &i); err != nil {
				t.Fatalf("unexpected RowKey %v", got["RowKey"])
			}
			want := soakEntity(i)
			for k, v := range want {
				if k == "Count" {
					v = float64(v.(int))
				}
				if got[k] != v {
					t.Errorf("entity %d: %s got %v, want %v", i, k, got[k], v)
				}
			}
			seen[got["RowKey"].(string)] = true
		}
	}
	if len(seen) != n {
		t.Errorf("entities stored: got %d, want %d", len(seen), n)
	}

	mu.Lock()
	defer mu.Unlock()
	total := 0
	for _, v := range retriesBy {
		total += v
	}
	injected := r.px.Injected()
	t.Logf("%d upserts, %d parallel, in %v; %d faults injected, %d retries %v, %d requests, %d connections",
		n, parallel, elapsed.Round(time.Millisecond), injected, total, retriesBy, r.px.Count("/"), r.px.Conns())
	if total != injected {
		t.Errorf("retries: got %d, want %d (one per injected fault)", total, injected)
	}
	for _, kind := range []string{"503 ServerBusy", "500 OperationTimedOut", "transport", "429 TooManyRequests"} {
		if retriesBy[kind] == 0 {
			t.Errorf("retries after %s: got 0, want some", kind)
		}
	}
	if got, want := r.px.Count("/"), n+injected; got != want {
		t.Errorf("requests: got %d, want %d (every upsert once plus one per fault)", got, want)
	}
}

func soakEntity(i int) map[string]any {
	return map[string]any{
		"PartitionKey": fmt.Sprintf("p%02d", i%16),
		"RowKey":       fmt.Sprintf("r%05d", i),
		"Count":        i,
		"Text":         fmt.Sprintf("value %d: %q", i, "it's"),
	}
}
