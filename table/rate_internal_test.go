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

// ago moves the limiter's last changes back by d, as if d had passed.
func (l *limiter) ago(d time.Duration) {
	l.mu.Lock()
	l.lastChange = l.lastChange.Add(-d)
	l.lastDecrease = l.lastDecrease.Add(-d)
	l.mu.Unlock()
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
