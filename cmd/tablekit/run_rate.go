package main

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"strconv"
	"sync/atomic"

	"github.com/tablekit/tablekit/table"
)

// rateValue is --rate: entities a second the run's requests keep (a
// table.Rate cap, adapting below it when the service throttles); 0, the
// default, adapts only once the service throttles; -1 turns the limiter off.
type rateValue float64

const rateUsage = "entities per second to keep, lowered while the service throttles; 0 (default): no cap, but back off together once the service throttles; -1: no limiter"

func (r *rateValue) String() string { return strconv.FormatFloat(float64(*r), 'g', -1, 64) }

func (r *rateValue) Set(s string) error {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || (v < 0 && v != -1) {
		return errors.New("want a number of entities per second, 0, or -1")
	}
	*r = rateValue(v)
	return nil
}

// registerRate adds --rate to fs.
func registerRate(fs *flag.FlagSet, r *rateValue) { fs.Var(r, "rate", rateUsage) }

// rateOf is the --rate a command registered on fs, nil when it has none.
func rateOf(fs *flag.FlagSet) *rateValue {
	if fl := fs.Lookup("rate"); fl != nil {
		if r, ok := fl.Value.(*rateValue); ok {
			return r
		}
	}
	return nil
}

// options is the table.Rate of --rate, with the hook that shows the rate on
// the progress line; nil for none. Without a cap there is no partition cap
// either: nothing slows a run the service does not throttle.
func (r *rateValue) options(c *retryCount) *table.Rate {
	if r == nil || *r < 0 {
		return nil
	}
	tr := &table.Rate{EntitiesPerSecond: float64(*r), OnChange: c.rateChanged}
	c.rate.bits.Store(math.Float64bits(float64(*r)))
	if *r == 0 {
		tr.PartitionEntitiesPerSecond = -1
	}
	return tr
}

// rateNow holds the limiter's entity rate (float64 bits; 0 until it has
// one) for the progress line.
type rateNow struct{ bits atomic.Uint64 }

func (c *retryCount) rateChanged(ev table.RateEvent) {
	c.rate.bits.Store(math.Float64bits(ev.EntitiesPerSecond))
}

// limit is ", limited to N/s" once the limiter has a rate.
func (c *retryCount) limit() string {
	if c == nil {
		return ""
	}
	if r := math.Float64frombits(c.rate.bits.Load()); r > 0 {
		return fmt.Sprintf(", limited to %.0f/s", r)
	}
	return ""
}
