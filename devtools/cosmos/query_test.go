package cosmos_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit/devtools/cosmos"
	"github.com/tablekit/tablekit/devtools/testenv"
)

// fill writes 30 entities, PartitionKey p0 to p2 and RowKey 00 to 09, with
// a Value and an Other property.
func fill(t *testing.T, c *aztables.Client) []string {
	t.Helper()
	var all []string
	for p := range 3 {
		var actions []aztables.TransactionAction
		for r := range 10 {
			pk, rk := fmt.Sprintf("p%d", p), fmt.Sprintf("%02d", r)
			actions = append(actions, aztables.TransactionAction{ActionType: aztables.TransactionTypeAdd,
				Entity: entity(pk, rk, map[string]any{"Value": p*10 + r, "Other": "x"})})
			all = append(all, pk+"/"+rk)
		}
		if _, err := c.SubmitTransaction(testenv.Ctx(t), actions, nil); err != nil {
			t.Fatal(err)
		}
	}
	return all
}

// page is what one query request returned.
type page struct {
	keys     []string
	props    []map[string]any
	npk, nrk *string
}

// pages reads a query from a continuation (nil: the start) to its end.
func pages(t *testing.T, c *aztables.Client, o aztables.ListEntitiesOptions) []page {
	t.Helper()
	var out []page
	pager := c.NewListEntitiesPager(&o)
	for pager.More() {
		resp, err := pager.NextPage(testenv.Ctx(t))
		if err != nil {
			t.Fatalf("page %d: %v", len(out), err)
		}
		p := page{npk: resp.NextPartitionKey, nrk: resp.NextRowKey}
		for _, e := range resp.Entities {
			var m map[string]any
			if err := json.Unmarshal(e, &m); err != nil {
				t.Fatal(err)
			}
			p.keys = append(p.keys, fmt.Sprint(m["PartitionKey"], "/", m["RowKey"]))
			p.props = append(p.props, m)
		}
		out = append(out, p)
	}
	return out
}

// flat is every key of ps in order.
func flat(ps []page) []string {
	var keys []string
	for _, p := range ps {
		keys = append(keys, p.keys...)
	}
	return keys
}

func sizes(ps []page) []int {
	var n []int
	for _, p := range ps {
		n = append(n, len(p.keys))
	}
	return n
}

// complete reports how keys differ from want as a set, "" when equal.
func complete(keys, want []string) string {
	got := slices.Sorted(slices.Values(keys))
	if slices.Equal(got, slices.Compact(slices.Clone(got))) && slices.Equal(got, want) {
		return ""
	}
	return fmt.Sprintf("got %d keys %v, want each of %d once", len(keys), keys, len(want))
}

func TestQuerySeededOrder(t *testing.T) {
	env, cs, tr := standIn(t, &cosmos.Options{Seed: 7})
	c, name := newNamedTable(t, service(t, env, cs.Endpoint(), tr))
	all := fill(t, c)
	cs.Reset()

	first := pages(t, c, aztables.ListEntitiesOptions{Top: ptr[int32](7)})
	if got, want := sizes(first), []int{7, 7, 7, 7, 2}; !slices.Equal(got, want) {
		t.Fatalf("page sizes: got %v, want %v", got, want)
	}
	keys := flat(first)
	if msg := complete(keys, all); msg != "" {
		t.Fatal(msg)
	}
	if slices.IsSorted(keys) {
		t.Errorf("order: got key order %v, want another", keys)
	}
	overlap := false
	for i := 1; i < len(first); i++ {
		overlap = overlap || slices.Min(first[i].keys) < slices.Max(first[i-1].keys)
	}
	if !overlap {
		t.Errorf("pages: got consecutive key ranges, want pages that are not key ranges")
	}
	if npk := *first[0].npk; !strings.HasPrefix(npk, `{"token":"+RID:~`) || *first[0].nrk == "" {
		t.Errorf("continuation: got %q / %q, want the stand-in's opaque values", npk, *first[0].nrk)
	}
	if got, want := cs.Stats().QueryPages, 5; got != want {
		t.Errorf("pages served: got %d, want %d", got, want)
	}

	// The same order on every read, and a page re-read is the same page.
	if again := flat(pages(t, c, aztables.ListEntitiesOptions{Top: ptr[int32](7)})); !slices.Equal(again, keys) {
		t.Errorf("second read: got %v, want %v", again, keys)
	}
	from2 := pages(t, c, aztables.ListEntitiesOptions{Top: ptr[int32](7), NextPartitionKey: first[1].npk, NextRowKey: first[1].nrk})
	if got, want := flat(from2), flat(first[2:]); !slices.Equal(got, want) {
		t.Errorf("resumed at page 3: got %v, want %v", got, want)
	}

	// Without $top, pages have the stand-in's page size.
	cs2 := env.Cosmos(t, &cosmos.Options{PageSize: 8})
	c2 := service(t, env, cs2.Endpoint(), cs2.Client()).NewClient(name)
	if got, want := sizes(pages(t, c2, aztables.ListEntitiesOptions{})), []int{8, 8, 8, 6}; !slices.Equal(got, want) {
		t.Errorf("default page size: got %v, want %v", got, want)
	}
}

func TestQueryChangingOrder(t *testing.T) {
	env, cs, tr := standIn(t, &cosmos.Options{Order: cosmos.Changing})
	c := newAzTable(t, service(t, env, cs.Endpoint(), tr))
	all := fill(t, c)
	top := ptr[int32](7)

	a, b := pages(t, c, aztables.ListEntitiesOptions{Top: top}), pages(t, c, aztables.ListEntitiesOptions{Top: top})
	for _, ps := range [][]page{a, b} {
		if msg := complete(flat(ps), all); msg != "" {
			t.Fatal(msg)
		}
	}
	if slices.Equal(flat(a), flat(b)) {
		t.Errorf("two reads: got the same order %v, want different ones", flat(a))
	}

	// Reading page 2's continuation again gives another page 2, and the
	// rest of the run from there still holds each remaining entity once.
	o := aztables.ListEntitiesOptions{Top: top, NextPartitionKey: a[0].npk, NextRowKey: a[0].nrk}
	again := pages(t, c, o)
	if slices.Equal(again[0].keys, a[1].keys) {
		t.Errorf("page 2 read again: got the same %v, want another order", again[0].keys)
	}
	if msg := complete(append(slices.Clone(a[0].keys), flat(again)...), all); msg != "" {
		t.Errorf("page 1 and the rest read again: %s", msg)
	}

	// The first run's continuation after page 2 still continues that run:
	// the re-read of page 2 did not reorder what the first run has yet to
	// read (an abandoned run's late request once made a resumed run return
	// entities twice).
	o = aztables.ListEntitiesOptions{Top: top, NextPartitionKey: a[1].npk, NextRowKey: a[1].nrk}
	if msg := complete(append(flat(a[:2]), flat(pages(t, c, o))...), all); msg != "" {
		t.Errorf("first run's pages 1 and 2, then its continuation after page 2 was read again elsewhere: %s", msg)
	}
}

func TestQueryRefusesOtherTokens(t *testing.T) {
	env, cs, tr := standIn(t, nil)
	c := newAzTable(t, service(t, env, cs.Endpoint(), tr))
	fill(t, c)
	ps := pages(t, c, aztables.ListEntitiesOptions{Top: ptr[int32](10)})
	npk, nrk := ps[0].npk, ps[0].nrk
	tests := []struct {
		name string
		o    aztables.ListEntitiesOptions
	}{
		{"keys as Table Storage's", aztables.ListEntitiesOptions{NextPartitionKey: ptr("p1"), NextRowKey: ptr("05")}},
		{"another query's", aztables.ListEntitiesOptions{Filter: ptr("PartitionKey eq 'p1'"), NextPartitionKey: npk, NextRowKey: nrk}},
		{"NextRowKey changed", aztables.ListEntitiesOptions{NextPartitionKey: npk, NextRowKey: ptr(*nrk + "0")}},
		{"NextRowKey left out", aztables.ListEntitiesOptions{NextPartitionKey: npk}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs.Reset()
			_, err := c.NewListEntitiesPager(&tt.o).NextPage(testenv.Ctx(t))
			if got, code := status(t, err); got != 400 || code != "BadRequest" {
				t.Errorf("got %d %q, want 400 BadRequest", got, code)
			}
			if got := cs.Stats().Refused; got != 1 {
				t.Errorf("counted: got %d, want 1", got)
			}
		})
	}
}

func TestQueryFilterSelectAndErrors(t *testing.T) {
	env, cs, tr := standIn(t, nil)
	svc := service(t, env, cs.Endpoint(), tr)
	c := newAzTable(t, svc)
	fill(t, c)

	p1 := flat(pages(t, c, aztables.ListEntitiesOptions{Filter: ptr("PartitionKey eq 'p1'"), Top: ptr[int32](4)}))
	if got := len(p1); got != 10 || slices.ContainsFunc(p1, func(k string) bool { return !strings.HasPrefix(k, "p1/") }) {
		t.Errorf("filter: got %v, want the 10 entities of p1", p1)
	}
	for _, m := range pages(t, c, aztables.ListEntitiesOptions{Select: ptr("Value"), Top: ptr[int32](13)})[1].props {
		if _, ok := m["Value"]; !ok || m["Other"] != nil {
			t.Errorf("$select=Value: got %v, want Value and not Other", m)
		}
	}
	empty := pages(t, c, aztables.ListEntitiesOptions{Filter: ptr("PartitionKey eq 'none'")})
	if len(empty) != 1 || len(empty[0].keys) != 0 || empty[0].npk != nil {
		t.Errorf("no match: got %+v, want one empty page without a continuation", empty)
	}
	_, err := svc.NewClient("missingtable").NewListEntitiesPager(nil).NextPage(testenv.Ctx(t))
	if got, code := status(t, err); got != 404 || code != "TableNotFound" {
		t.Errorf("missing table: got %d %q, want 404 TableNotFound", got, code)
	}
}
