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
type dryRun struct {
	on    bool
	price priceValue
}

// defaultPrice is --price's default, in USD per 10,000 transactions: the
// one figure the project's sources give. Microsoft's Azure Storage
// performance and scalability checklist (2016), on polling a queue: "at
// 200,000 transactions for $0.01 (at the time of writing)". Prices vary by
// region, redundancy and date, so every place that prints it says so.
const defaultPrice = 0.01 / 200_000 * 10_000

// defaultPriceSource names defaultPrice's source wherever it is printed.
const defaultPriceSource = "the figure of Microsoft's Azure Storage performance and scalability checklist (2016: $0.01 per 200,000 transactions); prices vary by region, redundancy and date: pass --price with your own"

// registerDryRun adds --dry-run and --price to fs.
func registerDryRun(fs *flag.FlagSet) *dryRun {
	d := &dryRun{price: -1}
	fs.BoolVar(&d.on, "dry-run", false, "read what the run reads, write nothing, and print the requests it would send by kind")
	fs.Var(&d.price, "price", "with --dry-run: USD per 10,000 transactions, to print the requests' cost; the default is "+defaultPriceSource)
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

// priceValue is --price; negative until set, when defaultPrice applies.
type priceValue float64

func (p *priceValue) String() string {
	if *p < 0 {
		return strconv.FormatFloat(defaultPrice, 'g', -1, 64)
	}
	return strconv.FormatFloat(float64(*p), 'g', -1, 64)
}

func (p *priceValue) Set(s string) error {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return errors.New("want the price in USD of 10,000 transactions, a number of at least 0")
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

// print writes the requests by kind and their cost at price (defaultPrice
// while it is unset).
func (p requestPlan) print(w io.Writer, verb string, price priceValue) error {
	usd, given := float64(price), price >= 0
	if !given {
		usd = defaultPrice
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(w, "tablekit %s --dry-run: nothing was written; the run would send:\n", verb)
	fmt.Fprintln(tw, "requests\tcount\tcost (USD)")
	row := func(kind string, n int64) {
		fmt.Fprintf(tw, "%s\t%d\t%s\n", kind, n, costText(float64(n)*usd/10000))
	}
	row("query pages", p.pages)
	row(fmt.Sprintf("transactions (%d entities)", p.txOps), p.transactions)
	row("single writes", p.singles)
	row("total", p.pages+p.transactions+p.singles)
	if err := tw.Flush(); err != nil {
		return err
	}
	var err error
	if given {
		_, err = fmt.Fprintf(w, "cost at $%s per 10,000 transactions (--price)\n", price.String())
	} else {
		_, err = fmt.Fprintf(w, "cost at $%g per 10,000 transactions, %s\n", defaultPrice, defaultPriceSource)
	}
	return err
}

// costText is a cost in dollars to three significant digits, and at least
// to the cent: the default price makes most runs cost a fraction of one.
func costText(usd float64) string {
	if usd <= 0 {
		return "0.00"
	}
	decimals := max(2, 2-int(math.Floor(math.Log10(usd))))
	return strconv.FormatFloat(usd, 'f', decimals, 64)
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
