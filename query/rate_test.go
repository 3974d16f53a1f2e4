package query

import (
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"

	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/table"
)

// TestRateCountsPageEntities: a query page draws the entities it returned
// from the Service's limiter, so at 1,000 entities a second the pages after
// a first one of 500 wait for the bucket, and say so on their spans.
func TestRateCountsPageEntities(t *testing.T) {
	loaded := testenv.NewTable[item](t, newService(t, "", nil))
	var all []item
	for r := range 1500 {
		all = append(all, makeItem(0, r))
	}
	load(t, loaded, all)

	rec := &testenv.Tracer{}
	svc := newService(t, "", &table.Options{
		Rate:   &table.Rate{EntitiesPerSecond: 1000, Fixed: true},
		Azcore: azcore.ClientOptions{TracingProvider: rec.Provider()},
	})
	tbl, err := table.New[item](svc, loaded.Name())
	if err != nil {
		t.Fatal(err)
	}
	got, err := Collect(New(tbl).PageSize(500).All(testenv.Ctx(t)))
	if err != nil || len(got) != len(all) {
		t.Fatalf("got %d entities, %v; want %d", len(got), err, len(all))
	}
	pages := rec.Named("query.page")
	if len(pages) != 3 {
		t.Fatalf("got %d query.page spans, want 3", len(pages))
	}
	for i, sp := range pages {
		waited := false
		for _, ev := range sp.Events {
			waited = waited || ev.Name == "rate.wait"
		}
		if want := i > 0; waited != want {
			t.Errorf("page %d: got rate.wait %v, want %v", i+1, waited, want)
		}
	}
}
