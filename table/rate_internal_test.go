package table

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"
)

func TestPageEntities(t *testing.T) {
	tests := []struct {
		name, body string
		want       int
	}{
		{"empty page", `{"value":[]}`, 0},
		{"two entities, a value quoting a key", `{"value":[{"odata.etag":"W/1","PartitionKey":"p","RowKey":"a","S":"\"RowKey\":"},{"odata.etag":"W/2","PartitionKey":"p","RowKey":"b"}]}`, 2},
		{"projection without RowKey", `{"value":[{"odata.etag":"W/1","V":1},{"odata.etag":"W/2","V":2},{"odata.etag":"W/3","V":3}]}`, 3},
		{"names ending in RowKey", `{"value":[{"MyRowKey":"RowKey","PartitionKey":"p","RowKey":"a","xodata.etag":1}]}`, 1},
		{"a key at the very start", `RowKey":1,"RowKey":2`, 1},
	}
	for _, tt := range tests {
		if got := pageEntities([]byte(tt.body)); got != tt.want {
			t.Errorf("%s: got %d entities, want %d", tt.name, got, tt.want)
		}
	}
}

// BenchmarkPageEntities counts a page of 1,000 entities of about 1 KB.
func BenchmarkPageEntities(b *testing.B) {
	var page []byte
	page = append(page, `{"odata.metadata":"http://x/$metadata#t","value":[`...)
	words := []string{"row", "key", "partition", "the", "of", "Rate", "odata", "value", "etag", "r2"}
	for i := range 1000 {
		if i > 0 {
			page = append(page, ',')
		}
		page = fmt.Appendf(page, `{"odata.etag":"W/\"datetime'2026-11-27T00%%3A00%%3A00.%07dZ'\"","PartitionKey":"p%02d","RowKey":"r%05d","Timestamp":"2026-11-27T00:00:00.%07dZ","N":%d,"Text":"`, i, i%50, i, i, i)
		for j := range 150 {
			page = append(page, words[(i*7+j*3)%len(words)]...)
			page = append(page, ' ')
		}
		page = append(page, `"}`...)
	}
	body := append(page, "]}"...)
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if n := pageEntities(body); n != 1000 {
			b.Fatalf("counted %d entities, want 1000", n)
		}
	}
}

// ago moves the limiter's last changes and its estimate's window back by
// d, as if d had passed.
func (l *limiter) ago(d time.Duration) {
	l.mu.Lock()
	l.lastChange = l.lastChange.Add(-d)
	l.lastDecrease = l.lastDecrease.Add(-d)
	if !l.winStart.IsZero() {
		l.winStart = l.winStart.Add(-d)
	}
	l.mu.Unlock()
}

// With no cap, the rate is a guess: the first throttled answer starts it
// from what was sent (sixteen transactions in flight at once), and
// throttled answers a quarter second apart lower it, where decreases are
// a second apart once a second passed without a change.
func TestLimiterGuess(t *testing.T) {
	l := newLimiter(&Rate{PartitionEntitiesPerSecond: -1})
	ctx := context.Background()
	for range 16 {
		if _, _, err := l.wait(ctx, 100, ""); err != nil {
			t.Fatal(err)
		}
	}
	steps := []struct {
		name    string
		advance time.Duration
		want    float64 // 0: no change
	}{
		{"first throttled answer: 0.8 of 1,600 sent in 100 ms", 0, 12800},
		{"again at once: in flight", 0, 0},
		{"a quarter second later", guessInterval, 10240},
		{"another quarter", guessInterval, 8192},
	}
	for _, s := range steps {
		l.ago(s.advance)
		ev, changed := l.observe(true)
		if s.want == 0 {
			if changed {
				t.Errorf("%s: got %+v, want no change", s.name, ev)
			}
			continue
		}
		if !changed || math.Abs(ev.EntitiesPerSecond-s.want) > s.want/100 {
			t.Errorf("%s: got %+v (changed %v), want about %v", s.name, ev, changed, s.want)
		}
	}
	// A second without a change ends the guess with the first climb.
	l.ago(time.Second)
	if ev, changed := l.observe(false); !changed || ev.Throttled {
		t.Fatalf("a clean second: got %+v (changed %v), want an increase", ev, changed)
	}
	rate := l.current
	l.ago(time.Second)
	if ev, _ := l.observe(true); math.Abs(ev.EntitiesPerSecond-0.8*rate) > 1e-9 {
		t.Errorf("throttled after the guess: got %v, want 0.8 of the rate %v", ev.EntitiesPerSecond, rate)
	}
	l.ago(guessInterval)
	if ev, changed := l.observe(true); changed {
		t.Errorf("throttled a quarter second later: got %+v, want no change", ev)
	}
}

// The estimate covers what the Service did lately: from its first request,
// not from when it was made, and not across a second in which it sent
// nothing. (A Service made, or idle, a second before its first throttled
// answer started at the floor of 10 entities a second.)
func TestLimiterEstimateWindow(t *testing.T) {
	l := newLimiter(&Rate{})
	t0 := time.Now().Add(5 * time.Second) // made five seconds before
	for i := range 10 {
		l.count(t0.Add(time.Duration(i)*10*time.Millisecond), 100)
	}
	if got, want := l.sent(t0.Add(100*time.Millisecond)), 10000.0; math.Abs(got-want) > 1 {
		t.Errorf("1,000 sent in the first 100 ms: got %v a second, want %v", got, want)
	}
	// Two seconds idle, then 500 more in 100 ms.
	t1 := t0.Add(2100 * time.Millisecond)
	for i := range 5 {
		l.count(t1.Add(time.Duration(i)*20*time.Millisecond), 100)
	}
	if got, want := l.sent(t1.Add(100*time.Millisecond)), 5000.0; math.Abs(got-want) > 1 {
		t.Errorf("500 sent in 100 ms after two idle seconds: got %v a second, want %v", got, want)
	}
}

func TestLimiterAdapts(t *testing.T) {
	l := newLimiter(&Rate{EntitiesPerSecond: 1000})
	steps := []struct {
		name      string
		throttled bool
		advance   time.Duration
		wantRate  float64 // 0: no change
	}{
		{"throttled: decrease", true, 0, 800},
		{"throttled again at once: answers in flight", true, 0, 0},
		{"clean at once", false, 0, 0},
		{"clean a second later: increase by a twentieth of the cap", false, time.Second, 850},
		{"clean again", false, time.Second, 900},
		{"throttled", true, time.Second, 720},
		{"throttled a second later", true, time.Second, 576},
	}
	for _, s := range steps {
		l.ago(s.advance)
		ev, changed := l.observe(s.throttled)
		if s.wantRate == 0 {
			if changed {
				t.Errorf("%s: got %+v, want no change", s.name, ev)
			}
			continue
		}
		if !changed || math.Abs(ev.EntitiesPerSecond-s.wantRate) > 1e-9 || ev.Throttled != s.throttled {
			t.Errorf("%s: got %+v (changed %v), want rate %v, throttled %v", s.name, ev, changed, s.wantRate, s.throttled)
		}
		if got, want := float64(l.entities.Limit()), ev.EntitiesPerSecond; got != want {
			t.Errorf("%s: bucket rate %v, want %v", s.name, got, want)
		}
	}
	if got, want := l.throttle.Load(), int64(4); got != want {
		t.Errorf("got %d throttled answers, want %d", got, want)
	}
	// Increases stop at the cap.
	for range 20 {
		l.ago(time.Second)
		l.observe(false)
	}
	if got, want := l.current, 1000.0; got != want {
		t.Errorf("after clean seconds: rate %v, want the cap %v", got, want)
	}
}

func TestLimiterFloorAndFixed(t *testing.T) {
	l := newLimiter(&Rate{EntitiesPerSecond: 100, MinEntitiesPerSecond: 70})
	l.observe(true)
	l.ago(time.Second)
	if ev, _ := l.observe(true); ev.EntitiesPerSecond != 70 {
		t.Errorf("got rate %v, want the floor 70", ev.EntitiesPerSecond)
	}
	f := newLimiter(&Rate{EntitiesPerSecond: 100, Fixed: true})
	if ev, changed := f.observe(true); changed {
		t.Errorf("Fixed: got %+v, want no change", ev)
	}
	if got, want := f.throttle.Load(), int64(1); got != want {
		t.Errorf("Fixed: got %d throttled answers, want %d counted", got, want)
	}
}

// With no cap nothing waits until the service throttles; then the rate
// starts below what was sent.
func TestLimiterNoCap(t *testing.T) {
	l := newLimiter(&Rate{PartitionEntitiesPerSecond: -1})
	ctx := context.Background()
	for range 50 {
		if d, _, err := l.wait(ctx, 100, "p"); d != 0 || err != nil {
			t.Fatalf("no cap: waited %v, %v; want no wait", d, err)
		}
	}
	if len(l.parts) != 0 {
		t.Errorf("got %d partition buckets with PartitionEntitiesPerSecond -1, want none", len(l.parts))
	}
	ev, changed := l.observe(true)
	if !changed || !math.IsInf(ev.Previous, 1) || ev.EntitiesPerSecond <= 0 || ev.EntitiesPerSecond > 0.8*5000/0.1 {
		t.Errorf("got %+v, want a finite rate at most 0.8 of what was sent", ev)
	}
}

// A partition's bucket holds DefaultPartitionRate a second by default; a
// query page's entities beyond the one it drew are a debt later requests wait for.
func TestLimiterBuckets(t *testing.T) {
	l := newLimiter(&Rate{EntitiesPerSecond: 1000})
	ctx := context.Background()
	if _, _, err := l.wait(ctx, 100, "p"); err != nil {
		t.Fatal(err)
	}
	p := l.parts["p"]
	if p == nil {
		t.Fatal("no bucket for partition p")
	}
	if got, want := float64(p.Limit()), float64(DefaultPartitionRate); got != want {
		t.Errorf("partition rate %v, want %v", got, want)
	}
	l.charge(1000)
	if got := l.entities.TokensAt(time.Now()); got > -900 {
		t.Errorf("after a page of 1000: %v tokens, want a debt of about 1000", got)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, _, err := l.wait(cctx, 1, ""); err != context.Canceled {
		t.Errorf("waiting with a cancelled context: got %v, want context.Canceled", err)
	}
}

// A floor above the cap never raises the rate above the cap.
func TestLimiterFloorAboveCap(t *testing.T) {
	l := newLimiter(&Rate{EntitiesPerSecond: 50, MinEntitiesPerSecond: 80})
	if ev, changed := l.observe(true); changed || l.current != 50 {
		t.Errorf("got %+v, rate %v, want no change from the cap 50", ev, l.current)
	}
}

// With no cap, the first climb doubles its step each clean second, up to
// four steps; after the next decrease it climbs a step at a time.
func TestLimiterFirstClimb(t *testing.T) {
	l := newLimiter(&Rate{PartitionEntitiesPerSecond: -1})
	l.observe(true)
	start, step := l.current, l.step
	var got []float64
	for range 5 {
		l.ago(time.Second)
		ev, _ := l.observe(false)
		got = append(got, math.Round((ev.EntitiesPerSecond-ev.Previous)/step))
	}
	if want := []float64{1, 2, 4, 4, 4}; !slices.Equal(got, want) {
		t.Errorf("first climb from %v: got increases of %v steps, want %v", start, got, want)
	}
	l.ago(time.Second)
	l.observe(true)
	step = l.step
	got = got[:0]
	for range 3 {
		l.ago(time.Second)
		ev, _ := l.observe(false)
		got = append(got, math.Round((ev.EntitiesPerSecond-ev.Previous)/step))
	}
	if want := []float64{1, 1, 1}; !slices.Equal(got, want) {
		t.Errorf("after a later decrease: got increases of %v steps, want %v", got, want)
	}
}
