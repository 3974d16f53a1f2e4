package faults_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit/devtools/faults"
)

// TestGarbleContinuation reads the second page (entities r2 and r3 of r0 to
// r5) of a query through each continuation fault, and checks what the
// client receives: its continuation headers and how many entities.
func TestGarbleContinuation(t *testing.T) {
	c, px, _ := proxiedTable(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for r := range 6 {
		e, _ := json.Marshal(map[string]any{"PartitionKey": "p", "RowKey": fmt.Sprintf("r%d", r)})
		if _, err := c.UpsertEntity(ctx, e, nil); err != nil {
			t.Fatal(err)
		}
	}
	top := int32(2)
	page := func(pk, rk *string) aztables.ListEntitiesResponse {
		t.Helper()
		pg, err := c.NewListEntitiesPager(&aztables.ListEntitiesOptions{Top: &top, NextPartitionKey: pk, NextRowKey: rk}).NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return pg
	}
	first := page(nil, nil) // unchanged: no rule yet
	if first.NextPartitionKey == nil || first.NextRowKey == nil {
		t.Fatal("the first page has no continuation")
	}
	key := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	str := func(p *string) string {
		if p == nil {
			return "<none>"
		}
		return *p
	}
	// The third page starts at r4; cut short, its keys "cA==" and "cjQ="
	// keep 1 character (4n+1 with n = 0).
	realPK, realRK := key("p")[:1], key("r4")[:1]
	tests := []struct {
		fault          faults.Fault
		wantPK, wantRK string
		wantEntities   int
	}{
		{faults.GarbleContinuation(faults.ContinuationFirstKey), key("p"), key("r2"), 2},
		{faults.GarbleContinuation(faults.ContinuationLastKey), key("p"), key("r3"), 2},
		{faults.GarbleContinuation(faults.ContinuationTruncated), realPK, realRK, 2},
		{faults.GarbleContinuation(faults.ContinuationDropped), "<none>", "<none>", 2},
		{faults.GarbleContinuation(faults.ContinuationEmptyPage), key("p"), key("r2"), 0},
		{faults.GarbleContinuation(faults.ContinuationEmptyBackwards), *first.NextPartitionKey, "<none>", 0},
		{faults.ContinuationTo("q", "s"), key("q"), key("s"), 2},
		{faults.ContinuationTo("q", ""), key("q"), "<none>", 2},
	}
	for _, tc := range tests {
		t.Run(tc.fault.String(), func(t *testing.T) {
			px.SetRules(faults.Rule{Match: faults.Method(http.MethodGet), Times: 1, Fault: tc.fault})
			defer px.SetRules()
			got := page(first.NextPartitionKey, first.NextRowKey)
			if got, want := px.Injected(), 1; got < want {
				t.Fatalf("injected: got %d, want %d", got, want)
			}
			px.Reset()
			if got, want := str(got.NextPartitionKey), tc.wantPK; got != want {
				t.Errorf("NextPartitionKey: got %s, want %s", got, want)
			}
			if got, want := str(got.NextRowKey), tc.wantRK; got != want {
				t.Errorf("NextRowKey: got %s, want %s", got, want)
			}
			if got, want := len(got.Entities), tc.wantEntities; got != want {
				t.Errorf("entities: got %d, want %d", got, want)
			}
		})
	}
	t.Run("last page unchanged", func(t *testing.T) {
		px.SetRules(faults.Rule{Match: faults.Method(http.MethodGet), Fault: faults.GarbleContinuation(faults.ContinuationFirstKey)})
		defer px.SetRules()
		pk, rk := key("p"), key("r4")
		got := page(&pk, &rk)
		if got.NextPartitionKey != nil || len(got.Entities) != 2 {
			t.Errorf("got continuation %s and %d entities, want none and 2", str(got.NextPartitionKey), len(got.Entities))
		}
	})
}
