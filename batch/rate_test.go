package batch_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"

	"github.com/tablekit/tablekit/batch"
	"github.com/tablekit/tablekit/devtools/faults"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/retry"
	"github.com/tablekit/tablekit/table"
)

// small is n small upserts over parts partitions, their RowKeys starting
// with prefix.
func small(n, parts int, prefix string) []batch.Op[item] {
	ops := make([]batch.Op[item], n)
	for i := range ops {
		ops[i] = batch.Op[item]{Entity: item{PartitionKey: fmt.Sprintf("p%02d", i%parts), RowKey: fmt.Sprintf("%s%06d", prefix, i), N: int64(i)}}
	}
	return ops
}

// rateEvents keeps the RateEvents of a Service.
type rateEvents struct {
	mu  sync.Mutex
	evs []table.RateEvent
}

func (r *rateEvents) add(ev table.RateEvent) {
	r.mu.Lock()
	r.evs = append(r.evs, ev)
	r.mu.Unlock()
}

func (r *rateEvents) all() []table.RateEvent {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]table.RateEvent(nil), r.evs...)
}

// TestRateCapNeverExceeded: a bulk load under a cap of R entities a second
// sends no more than R, plus the bucket's one transaction and 100 ms of
// arrival jitter, in any one-second window after the first, as the proxy
// counts them.
func TestRateCapNeverExceeded(t *testing.T) {
	const capacity = 1000
	_, viaProxy, px := proxiedWith(t, &table.Options{Rate: &table.Rate{EntitiesPerSecond: capacity, Fixed: true}, Retry: fastRetry})
	// The proxy only counts: a scheduling delay that bunches arrivals must
	// not turn into throttling and retries.
	px.SetCapacity(&faults.Capacity{EntitiesPerSecond: 1e6})
	n := testenv.Size(6000, 3000)
	if testing.Short() {
		n = 2500
	}
	sum, err := batch.Write(testenv.Ctx(t), viaProxy, small(n, 8, "r"), &batch.WriteOptions{Retry: fastRetry, InFlight: 8})
	if err != nil {
		t.Fatalf("Write: %v (summary %+v)", err, sum)
	}
	arr := px.Arrivals()
	var total, throttled int
	for _, a := range arr {
		total += a.Entities
		if a.Throttled {
			throttled++
		}
	}
	if total != n || throttled != 0 {
		t.Fatalf("proxy got %d entities, %d throttled, want %d and none", total, throttled, n)
	}
	got, at := faults.Busiest(arr, time.Second, time.Second)
	t.Logf("busiest second after the first: %d entities, from %v", got, at)
	// A token bucket of rate R and size B lets through at most B + R*W in
	// any window W; the proxy sees the requests up to a scheduling delay
	// later, which bunches them: allow 100 ms of it.
	if want := capacity + 100 + capacity/10; got > want {
		t.Errorf("got %d entities in the second from %v, want at most %d", got, at, want)
	}
	if span := arr[len(arr)-1].At - arr[0].At; span < time.Duration(float64(n-capacity)/capacity*0.9*float64(time.Second)) {
		t.Errorf("got %d entities sent in %v, want the cap of %d/s kept", n, span, capacity)
	}
}

// TestRateAdaptsAndRecovers: with no cap, throttling by a busy account
// lowers the rate for the whole Service; once the account stops
// throttling, clean answers raise it again.
func TestRateAdaptsAndRecovers(t *testing.T) {
	if testing.Short() {
		t.Skip("a few seconds of load at a throttled rate")
	}
	evs := &rateEvents{}
	pol := &retry.Policy{InitialInterval: 50 * time.Millisecond, MaxInterval: 500 * time.Millisecond, MaxAttempts: 30}
	_, viaProxy, px := proxiedWith(t, &table.Options{Rate: &table.Rate{OnChange: evs.add}, Retry: pol})
	px.SetCapacity(&faults.Capacity{EntitiesPerSecond: 400})
	ctx := testenv.Ctx(t)
	if sum, err := batch.Write(ctx, viaProxy, small(2400, 8, "a"), &batch.WriteOptions{Retry: pol, InFlight: 8}); err != nil {
		t.Fatalf("Write while throttled: %v (summary %+v)", err, sum)
	}
	decreased := evs.all()
	if len(decreased) == 0 || !decreased[0].Throttled {
		t.Fatalf("got rate events %+v, want a decrease first", decreased)
	}
	low := decreased[len(decreased)-1].EntitiesPerSecond
	var throttled int
	for _, a := range px.Arrivals() {
		if a.Throttled {
			throttled++
		}
	}
	// An event reports the throttled answers counted when the rate last
	// changed: the proxy may have throttled a few more since, never fewer.
	if saw := decreased[len(decreased)-1].ThrottledAnswers; saw == 0 || saw > int64(throttled) {
		t.Errorf("limiter saw %d throttled answers, proxy throttled %d", saw, throttled)
	}

	t.Logf("while throttled: %d rate changes down to %.0f/s; proxy throttled %d of %d requests", len(decreased), low, throttled, len(px.Arrivals()))
	px.SetCapacity(nil)
	n := max(300, int(3*low)) // three seconds at the lowered rate
	if sum, err := batch.Write(ctx, viaProxy, small(n, 8, "b"), &batch.WriteOptions{Retry: pol, InFlight: 8}); err != nil {
		t.Fatalf("Write after throttling: %v (summary %+v)", err, sum)
	}
	after := evs.all()[len(decreased):]
	t.Logf("after: %d rate changes, %+v", len(after), after)
	if len(after) == 0 {
		t.Fatalf("no rate change in %d clean entities from %.0f/s, want increases", n, low)
	}
	for _, ev := range after {
		if ev.Throttled || ev.EntitiesPerSecond <= ev.Previous {
			t.Errorf("got %+v after the account stopped throttling, want an increase", ev)
		}
	}
}

// TestRateWaitEndsWithContext: a bulk load held back by the limiter ends at
// once when its context is cancelled, without sending what was waiting.
func TestRateWaitEndsWithContext(t *testing.T) {
	_, viaProxy, px := proxiedWith(t, &table.Options{Rate: &table.Rate{EntitiesPerSecond: 0.01, MinEntitiesPerSecond: 0.01, Fixed: true}, Retry: fastRetry})
	px.SetCapacity(&faults.Capacity{EntitiesPerSecond: 1e6})
	ctx, cancel := context.WithCancel(testenv.Ctx(t))
	sent := make(chan struct{})
	go func() {
		// The bucket holds 100 entities: the first transaction goes at once,
		// the second waits 10,000 s. Cancel once the first has arrived.
		for len(px.Arrivals()) == 0 {
			time.Sleep(time.Millisecond)
		}
		close(sent)
		cancel()
	}()
	start := time.Now()
	_, err := batch.Write(ctx, viaProxy, small(200, 1, "c"), &batch.WriteOptions{Retry: fastRetry})
	<-sent
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Write ended after %v, want at once on cancellation", d)
	}
	if got := len(px.Arrivals()); got != 1 {
		t.Errorf("proxy got %d transactions, want 1 (the second waited)", got)
	}
}

// TestRateInSpans: a transaction held back by the limiter, and one whose
// throttled answer lowered the rate, say so on their spans.
func TestRateInSpans(t *testing.T) {
	rec := &testenv.Tracer{}
	_, viaProxy, px := proxiedWith(t, &table.Options{
		Rate:   &table.Rate{EntitiesPerSecond: 1000},
		Retry:  fastRetry,
		Azcore: azcore.ClientOptions{TracingProvider: rec.Provider()},
	})
	px.SetRules(faults.Rule{Match: faults.PathContains("$batch"), Times: 1, Fault: faults.Status(http.StatusServiceUnavailable, "ServerBusy", nil)})
	// One partition: its transactions go one after another, the first
	// throttled; at 800 entities/s the later ones wait for the bucket.
	if sum, err := batch.Write(testenv.Ctx(t), viaProxy, small(400, 1, "s"), &batch.WriteOptions{Retry: fastRetry}); err != nil {
		t.Fatalf("Write: %v (summary %+v)", err, sum)
	}
	// A run slower than a second after the decrease may see an increase
	// too (800 + 50 per clean second).
	var waits, decreases int
	for _, sp := range rec.Named("batch.transaction") {
		for _, ev := range sp.Events {
			rate, _ := ev.Attrs["tablekit.rate"].(int64)
			switch ev.Name {
			case "rate.wait":
				waits++
				if rate < 800 || rate > 1000 {
					t.Errorf("rate.wait: got rate %v, want 800 to 1000", rate)
				}
			case "rate.change":
				if got, want := ev.Attrs["tablekit.throttled"], int64(1); got != want {
					t.Errorf("rate.change: got %v throttled answers, want %v", got, want)
				}
				if rate == 800 {
					decreases++
				} else if rate < 800 || rate > 1000 {
					t.Errorf("rate.change: got rate %v, want 800, or an increase from it", rate)
				}
			}
		}
	}
	if decreases != 1 || waits == 0 {
		t.Errorf("got %d rate.change to 800 and %d rate.wait events, want 1 and some", decreases, waits)
	}
}

// TestRatePartitionCap: the writes to each partition keep the partition's
// cap, R plus the bucket's one transaction and 100 ms of arrival jitter in
// any one-second window (a token bucket's bound holds from the start), as
// the proxy counts them per partition, while the account has no cap.
func TestRatePartitionCap(t *testing.T) {
	const perPartition = 500
	_, viaProxy, px := proxiedWith(t, &table.Options{Rate: &table.Rate{PartitionEntitiesPerSecond: perPartition}, Retry: fastRetry})
	px.SetCapacity(&faults.Capacity{EntitiesPerSecond: 1e6, PerPartition: true})
	const parts = 4
	n := parts * 2 * perPartition // two seconds of each partition
	if sum, err := batch.Write(testenv.Ctx(t), viaProxy, small(n, parts, "w"), &batch.WriteOptions{Retry: fastRetry, InFlight: 8}); err != nil {
		t.Fatalf("Write: %v (summary %+v)", err, sum)
	}
	byPart := map[string][]faults.Arrival{}
	for _, a := range px.Arrivals() {
		byPart[a.Partition] = append(byPart[a.Partition], a)
	}
	if len(byPart) != parts {
		t.Fatalf("got arrivals for partitions %v, want %d partitions", len(byPart), parts)
	}
	for pk, arr := range byPart {
		got, at := faults.Busiest(arr, 0, time.Second)
		if want := perPartition + 100 + perPartition/10; got > want {
			t.Errorf("partition %s: got %d entities in the second from %v, want at most %d", pk, got, at, want)
		}
	}
}
