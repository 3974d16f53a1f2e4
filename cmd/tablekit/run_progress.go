package main

import (
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schollz/progressbar/v3"
)

// logEvery is how often progress is logged when stderr is not a terminal
// (a CI log or a file): often enough to see it move, rarely enough to read.
var logEvery = 10 * time.Second

// meter counts a run's work and shows it on stderr: a live display on a
// terminal, plain log lines otherwise, and the final summary.
type meter struct {
	verb    string
	w       io.Writer
	start   time.Time
	done    atomic.Int64 // entities done, including a resumed run's earlier ones
	bytes   atomic.Int64 // -1 when unknown
	rejects atomic.Int64
	retries *retryCount // nil: none counted
	base    int64       // done before this process started (resumed)

	// inRead of inTotal bytes of the input are read: an import from a
	// regular file knows its size, hence an ETA.
	inRead  *atomic.Int64
	inTotal int64

	mu   sync.Mutex
	bar  *progressbar.ProgressBar
	gate *gate // the bar's writer, closed when the bar is done
	stop chan struct{}
	wg   sync.WaitGroup
}

// newMeter starts showing progress; total is -1 when unknown (then there is
// no ETA). base is the count already done by an earlier, resumed run.
func newMeter(e *env, verb string, total, base int64, retries *retryCount) *meter {
	m := &meter{verb: verb, w: e.stderr, start: time.Now(), retries: retries, base: base, stop: make(chan struct{})}
	m.done.Store(base)
	m.bytes.Store(-1)
	if e.tty {
		m.gate = &gate{w: e.stderr}
		m.bar = progressbar.NewOptions64(total,
			progressbar.OptionSetWriter(m.gate),
			progressbar.OptionSetDescription(verb),
			progressbar.OptionSetItsString("entities"),
			progressbar.OptionShowIts(),
			progressbar.OptionShowCount(),
			progressbar.OptionSetElapsedTime(true),
			progressbar.OptionSetPredictTime(total > 0),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionSpinnerType(14),
			progressbar.OptionFullWidth(),
		)
		if base > 0 {
			_ = m.bar.Set64(base)
		}
		return m
	}
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		t := time.NewTicker(logEvery)
		defer t.Stop()
		for {
			select {
			case <-m.stop:
				return
			case <-t.C:
				el := time.Since(m.start)
				n := m.done.Load()
				fmt.Fprintf(m.w, "tablekit: %s: %d entities, %.0f/s, %s elapsed%s%s\n", verb, n, rate(n-m.base, el), el.Round(time.Second), m.throttling(), m.eta())
			}
		}
	}()
	return m
}

func (m *meter) add(n int) {
	m.done.Add(int64(n))
	if m.bar != nil {
		m.mu.Lock()
		if m.inTotal > 0 || m.throttling() != "" {
			m.bar.Describe(m.verb + m.throttling() + m.eta())
		}
		_ = m.bar.Add(n)
		m.mu.Unlock()
	}
}

// eta is ", N% of input, ETA D" when the input's size is known.
func (m *meter) eta() string {
	if m.inTotal <= 0 {
		return ""
	}
	read, el := m.inRead.Load(), time.Since(m.start)
	if read <= 0 {
		return ""
	}
	frac := float64(read) / float64(m.inTotal)
	left := time.Duration(float64(el) * (1 - frac) / frac)
	return fmt.Sprintf(", %.0f%% of input, ETA %s", 100*frac, left.Round(time.Second))
}

func rate(n int64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

// finish stops the display and writes the summary line on stderr.
func (m *meter) finish() {
	if m.bar != nil {
		m.mu.Lock()
		_ = m.bar.Exit()
		// The bar's spinner goroutine renders until the bar is finished,
		// Exit or not: close its writer first (nothing it renders after
		// this reaches stderr), then Finish stops the goroutine.
		m.gate.close()
		_ = m.bar.Finish()
		m.mu.Unlock()
		fmt.Fprintln(m.w)
	} else {
		close(m.stop)
		m.wg.Wait()
	}
	fmt.Fprintln(m.w, m.summary())
}

// throttled is how many retries followed throttling so far.
func (m *meter) throttled() int64 {
	if m.retries == nil {
		return 0
	}
	return m.retries.throttled.Load()
}

// throttling is ", throttled N times" once the service has throttled the
// run: the progress line says why it slowed down.
func (m *meter) throttling() string {
	s := m.retries.limit()
	if n := m.throttled(); n > 0 {
		s += fmt.Sprintf(", throttled %d times", n)
	}
	return s
}

// summary is the one-line account of the run: entities, bytes when known,
// seconds, rate, retries (those after throttling) and rejects.
func (m *meter) summary() string {
	el := time.Since(m.start)
	n := m.done.Load()
	s := fmt.Sprintf("tablekit: %s: %d entities", m.verb, n)
	if m.base > 0 {
		s += fmt.Sprintf(" (%d in this run)", n-m.base)
	}
	if b := m.bytes.Load(); b >= 0 {
		s += fmt.Sprintf(", %d bytes", b)
	}
	var retries int64
	if m.retries != nil {
		retries = m.retries.all.Load()
	}
	return s + fmt.Sprintf(", %.1f s, %.0f entities/s, %d retries (%d throttled), %d rejects",
		el.Seconds(), rate(n-m.base, el), retries, m.throttled(), m.rejects.Load())
}

// gate passes writes to w until it is closed, then drops them, so that a
// goroutine of the progress bar cannot write after the summary.
type gate struct {
	mu     sync.Mutex
	w      io.Writer
	closed bool
}

func (g *gate) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return len(p), nil
	}
	return g.w.Write(p)
}

func (g *gate) close() {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
}
