package table_test

import (
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/internal/core"
	"github.com/tablekit/tablekit/table"
)

type traced struct{ PartitionKey, RowKey string }

// TestTracerReachesSiblings: a table's tracer comes from the Service's
// TracingProvider and reaches query and batch through the table's state,
// core.Table, which they convert the table to.
func TestTracerReachesSiblings(t *testing.T) {
	const ep = "http://127.0.0.1:10002/devstoreaccount1"
	const key = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
	rec := &testenv.Tracer{}
	withProvider := &table.Options{Azcore: azcore.ClientOptions{TracingProvider: rec.Provider()}}
	open := func(o *table.Options) *table.Table[traced] {
		svc, err := table.NewServiceWithSharedKey(ep, "devstoreaccount1", key, o)
		if err != nil {
			t.Fatal(err)
		}
		tbl, err := table.New[traced](svc, "orders")
		if err != nil {
			t.Fatal(err)
		}
		return tbl
	}
	wrapped, err := table.Wrap[traced](&aztables.Client{}, "orders")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		t    *table.Table[traced]
		want bool
	}{
		{"provider set", open(withProvider), true},
		{"no provider", open(nil), false},
		{"Wrap", wrapped, false},
		{"nil", nil, false},
	}
	for _, tt := range tests {
		if got := (*core.Table)(tt.t).Tracer().Enabled(); got != tt.want {
			t.Errorf("%s: tracer enabled = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestSpansCarryTheOperation: a request's span names the table, partition
// and entity count its call described, not only the operation.
func TestSpansCarryTheOperation(t *testing.T) {
	rec := &testenv.Tracer{}
	svc := testenv.Azurite(t).NewService(t, &table.Options{Azcore: azcore.ClientOptions{TracingProvider: rec.Provider()}})
	tbl := testenv.NewTable[traced](t, svc)
	ctx := testenv.Ctx(t)
	m, err := tbl.Add(ctx, traced{PartitionKey: "p1", RowKey: "r"})
	if err != nil {
		t.Fatal(err)
	}
	if err := tbl.Delete(ctx, "p1", "r", m.ETag); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		span string
		want map[string]any
	}{
		{"Client.AddEntity", map[string]any{"tablekit.table": tbl.Name(), "tablekit.partition": "p1", "tablekit.entities": 1}},
		{"Client.DeleteEntity", map[string]any{"tablekit.table": tbl.Name(), "tablekit.partition": "p1", "tablekit.entities": 1}},
	} {
		got := rec.Named(tc.span)
		if len(got) != 1 {
			t.Fatalf("%s: %d spans, want 1", tc.span, len(got))
		}
		for k, want := range tc.want {
			if got[0].Attrs[k] != want {
				t.Errorf("%s: attribute %s got %v, want %v", tc.span, k, got[0].Attrs[k], want)
			}
		}
	}
}
