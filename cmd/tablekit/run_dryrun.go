package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"sync/atomic"
	"text/tabwriter"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
)

// dryRun is --dry-run and --price: the run reads what it must to count,
// writes nothing, and prints the requests it would send and their cost.
// --price has no default: no price per 10,000 table transactions was found
// in a source the project could cite (docs/throughput.md's "Dry runs").
type dryRun struct {
	on    bool
	price priceValue
}

// registerDryRun adds --dry-run and --price to fs.
func registerDryRun(fs *flag.FlagSet) *dryRun {
	d := &dryRun{price: -1}
	fs.BoolVar(&d.on, "dry-run", false, "read what the run reads, write nothing, and print the requests it would send by kind")
	fs.Var(&d.price, "price", "with --dry-run: the price of 10,000 transactions (any currency), to print the requests' cost; no default")
	return d
}

// check refuses, before any request, what a dry run cannot do: write a
// checkpoint or another output, or price a run it does not count.
func (d *dryRun) check(ckpt checkpointFlags, outputs ...string) error {
	if !d.on {
		if d.price >= 0 {
			return usagef("--price needs --dry-run")
		}
		return nil
	}
	if ckpt.path != "" {
		return usagef("--dry-run writes nothing: drop --checkpoint")
	}
	for _, o := range outputs {
		if o != "" {
			return usagef("--dry-run writes nothing: drop %s", o)
		}
	}
	return nil
}

// priceValue is --price; negative until set.
type priceValue float64

func (p *priceValue) String() string {
	if *p < 0 {
		return ""
	}
	return strconv.FormatFloat(float64(*p), 'g', -1, 64)
}

func (p *priceValue) Set(s string) error {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return errors.New("want the price of 10,000 transactions, a number of at least 0")
	}
	*p = priceValue(v)
	return nil
}

// sentRequests counts the requests of a connection as they are made (a
// per-call policy: a retry is the same request): a dry run's reads are the
// query pages the run would read.
type sentRequests struct{ reads, writes atomic.Int64 }

func (c *sentRequests) Do(req *policy.Request) (*http.Response, error) {
	if req.Raw().Method == http.MethodGet {
		c.reads.Add(1)
	} else {
		c.writes.Add(1)
	}
	return req.Next()
}

// requestPlan is what a dry run counted: the requests by kind.
type requestPlan struct {
	pages        int64 // query pages: read by the dry run itself
	transactions int64
	txOps        int64 // operations in the transactions
	singles      int64 // single-entity writes
}

// print writes the requests by kind and, with a price, their cost.
func (p requestPlan) print(w io.Writer, verb string, price priceValue) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := "requests\tcount"
	if price >= 0 {
		head += "\tcost"
	}
	fmt.Fprintf(w, "tablekit %s --dry-run: nothing was written; the run would send:\n", verb)
	fmt.Fprintln(tw, head)
	row := func(kind string, n int64) {
		line := fmt.Sprintf("%s\t%d", kind, n)
		if price >= 0 {
			line += fmt.Sprintf("\t%.4f", float64(n)*float64(price)/10000)
		}
		fmt.Fprintln(tw, line)
	}
	row("query pages", p.pages)
	row(fmt.Sprintf("transactions (%d entities)", p.txOps), p.transactions)
	row("single writes", p.singles)
	row("total", p.pages+p.transactions+p.singles)
	if err := tw.Flush(); err != nil {
		return err
	}
	if price >= 0 {
		_, err := fmt.Fprintf(w, "cost at %s per 10,000 transactions\n", price.String())
		return err
	}
	return nil
}

// counted is the per-call policy that counts a connection's requests in c.
func (c *retryCount) counted() []policy.Policy { return []policy.Policy{&c.sent} }

// flagIf is name when value is set: an output flag a dry run refuses.
func flagIf(value, name string) string {
	if value == "" {
		return ""
	}
	return name
}
