package table

import (
	"bytes"
	"net/http"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"

	"github.com/tablekit/tablekit/internal/opdesc"
	"github.com/tablekit/tablekit/internal/payload"
	"github.com/tablekit/tablekit/internal/spans"
)

// ratePolicy draws every attempt of a Service's data requests from its
// limiter (Options.Rate) and adapts the limiter to each answer. It is the
// first per-attempt policy of the data pipeline (newPipeline): before
// signing, so that a wait does not age a signature, and after the retry
// policy, so that each attempt is counted as the service counts it.
type ratePolicy struct{ l *limiter }

func (p ratePolicy) Do(req *policy.Request) (*http.Response, error) {
	d := opdesc.Of(req)
	n, partition, page := p.cost(d)
	ctx := req.Raw().Context()
	waited, current, err := p.l.wait(ctx, n, partition)
	if err != nil {
		return nil, err
	}
	sp := spans.Current(ctx)
	if waited > 0 {
		sp.RateWait(waited, current)
	}
	resp, err := req.Next()
	if err != nil {
		return resp, err
	}
	if page && resp.StatusCode == http.StatusOK {
		if body, perr := pageBody(resp, d); perr == nil {
			p.l.charge(pageEntities(body) - n)
		}
	}
	throttled := spans.Throttled(resp.StatusCode, resp.Header.Get("x-ms-error-code"))
	if ev, ok := p.l.observe(throttled); ok {
		sp.RateChange(ev.EntitiesPerSecond, ev.ThrottledAnswers)
		if p.l.cfg.OnChange != nil {
			p.l.cfg.OnChange(ev)
		}
	}
	return resp, nil
}

// cost is what the request draws from the limiter, as the service counts
// toward its targets, read from the operation's description (opdesc): a
// write its entities (a transaction its operations), every other request
// one; a query page draws one now and what it returned when the answer
// comes (page). A write names its partition, for the partition's bucket.
func (p ratePolicy) cost(d opdesc.Desc) (n int, partition string, page bool) {
	if d.Kind == opdesc.QueryPage {
		return 1, "", true
	}
	if !d.IsWrite() {
		return 1, "", false
	}
	if p.l.cfg.PartitionEntitiesPerSecond > 0 {
		partition = d.PartitionKey
	}
	return max(1, d.Entities), partition, false
}

// pageBody is a page's body: read by package payload when its caller reads
// it (opdesc.Desc.Read: azcore's download skipped), as the retry policy
// reads it after this policy.
func pageBody(resp *http.Response, d opdesc.Desc) ([]byte, error) {
	if d.Read != nil {
		return payload.Read(resp, d.SizeHint)
	}
	return runtime.Payload(resp)
}

// pageEntities counts the entities of a JSON query page by their RowKey
// members, or, in a projection that leaves RowKey out, by their
// odata.etag (minimal metadata): every entity has the one or the other
// (all of a page alike), and once counted there is no need to count the
// other across the page again.
func pageEntities(body []byte) int {
	if n := countMembers(body, "RowKey"); n > 0 {
		return n
	}
	return countMembers(body, "odata.etag")
}

// countMembers counts the members named name in JSON text: name":
// preceded by a quote, which cannot occur inside a JSON string, where every
// quote is escaped. The search starts at the name, not the quote, since a
// name's first letter is rarer in JSON than a quote and the search skips
// ahead to each candidate.
func countMembers(body []byte, name string) int {
	pat := []byte(name + `":`)
	n := 0
	for i := 0; ; {
		j := bytes.Index(body[i:], pat)
		if j < 0 {
			return n
		}
		if i+j > 0 && body[i+j-1] == '"' {
			n++
		}
		i += j + len(pat)
	}
}
