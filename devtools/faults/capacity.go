package faults

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/tablekit/tablekit/internal/txwire"
)

// Capacity makes the proxy a busy account: it accepts EntitiesPerSecond
// entities a second, counted as the service counts them toward its
// scalability targets (a transaction by its operations, every other
// request as one entity; a query page counts 1, as the proxy cannot know
// how many entities the service scanned), and answers 503 ServerBusy,
// without forwarding, to a request beyond them. Rules that fire come
// first: a request they fault is not counted.
type Capacity struct {
	// EntitiesPerSecond is the rate R of the token bucket; it must be > 0.
	EntitiesPerSecond float64
	// Burst is the bucket's size; default max(100, R/10): a whole
	// transaction fits, and no one-second window takes much over R.
	Burst int
	// PerPartition gives each partition a bucket of its own for writes
	// (an entity's or a transaction's PartitionKey), as the service's
	// partition target; reads share one bucket.
	PerPartition bool
	// Match selects the requests counted; nil counts every request.
	Match func(*http.Request) bool
}

// Arrival is one request that Capacity counted, accepted or not.
type Arrival struct {
	// At is when it arrived, since SetCapacity.
	At time.Duration
	// Entities is what it counted for.
	Entities int
	// Partition is the write's PartitionKey when PerPartition is set.
	Partition string
	// Throttled is true when the proxy answered 503 ServerBusy.
	Throttled bool
}

// capacity is a Capacity at work: its buckets and what arrived.
type capacity struct {
	Capacity
	start time.Time

	mu         sync.Mutex
	account    *rate.Limiter
	partitions map[string]*rate.Limiter
	arrivals   []Arrival
}

// maxArrivals bounds the log: a bounded test never comes near it.
const maxArrivals = 1 << 20

// SetCapacity makes the proxy a busy account from now on, with full
// buckets and an empty log of arrivals; nil makes it accept everything
// again (the log stays readable until the next SetCapacity).
func (p *Proxy) SetCapacity(c *Capacity) {
	var cs *capacity
	if c != nil {
		if c.EntitiesPerSecond <= 0 {
			panic("faults: Capacity.EntitiesPerSecond must be > 0")
		}
		cs = &capacity{Capacity: *c, start: time.Now(), partitions: map[string]*rate.Limiter{}}
		cs.account = cs.newBucket()
	}
	p.mu.Lock()
	p.capacity = cs
	if cs != nil {
		p.capacityLog = cs
	}
	p.mu.Unlock()
}

// Arrivals returns the requests counted since the last SetCapacity, in
// order of arrival.
func (p *Proxy) Arrivals() []Arrival {
	p.mu.Lock()
	cs := p.capacityLog
	p.mu.Unlock()
	if cs == nil {
		return nil
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return append([]Arrival(nil), cs.arrivals...)
}

func (c *capacity) newBucket() *rate.Limiter {
	b := c.Burst
	if b <= 0 {
		b = max(100, int(c.EntitiesPerSecond/10))
	}
	return rate.NewLimiter(rate.Limit(c.EntitiesPerSecond), b)
}

// overCapacity counts r (reading its body, which it puts back) and
// reports whether the account has no room for it.
func (p *Proxy) overCapacity(r *http.Request) bool {
	p.mu.Lock()
	c := p.capacity
	p.mu.Unlock()
	if c == nil || (c.Match != nil && !c.Match(r)) {
		return false
	}
	var body []byte
	if r.Body != nil && r.Body != http.NoBody {
		body, _ = io.ReadAll(io.LimitReader(r.Body, 64<<20))
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	n := 1
	if strings.HasSuffix(r.URL.Path, "/$batch") {
		n = max(txwire.CountOps(body), 1)
	}
	pk, write := "", r.Method != http.MethodGet && r.Method != http.MethodHead
	if c.PerPartition && write {
		pk, _ = txwire.PartitionOf(r.URL.Path, body)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	// now is taken under the lock: the bucket must see times in order (an
	// earlier one would count the time between them twice), and so must
	// the arrivals' log.
	now := time.Now()
	lim := c.account
	if c.PerPartition && write {
		if lim = c.partitions[pk]; lim == nil {
			lim = c.newBucket()
			c.partitions[pk] = lim
		}
	}
	ok := lim.AllowN(now, n)
	if len(c.arrivals) < maxArrivals {
		c.arrivals = append(c.arrivals, Arrival{At: now.Sub(c.start), Entities: n, Partition: pk, Throttled: !ok})
	}
	return !ok
}

// writeServerBusy answers as the service does when an account or a
// partition is over its target.
func writeServerBusy(w http.ResponseWriter) {
	body := errorBody("ServerBusy", "The server is busy.")
	h := w.Header()
	h.Set("x-ms-error-code", "ServerBusy")
	h.Set("Content-Type", "application/json;odata=minimalmetadata;streaming=true;charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusServiceUnavailable)
	_, _ = w.Write(body)
}

// Busiest is the most entities that arrived (accepted or not) in any window
// of width that starts skip or later after the first arrival, and where
// that window starts (since SetCapacity): the measure of a client's rate
// over windows, with the first ones, which a full bucket may serve, left out.
func Busiest(arr []Arrival, skip, width time.Duration) (entities int, at time.Duration) {
	if len(arr) == 0 {
		return 0, 0
	}
	from := arr[0].At + skip
	end, sum := 0, 0 // arr[i:end] is the window starting at arr[i]
	for i, a := range arr {
		if i > 0 && end > i-1 {
			sum -= arr[i-1].Entities
		}
		end = max(end, i)
		for ; end < len(arr) && arr[end].At < a.At+width; end++ {
			sum += arr[end].Entities
		}
		if a.At >= from && sum > entities {
			entities, at = sum, a.At
		}
	}
	return entities, at
}
