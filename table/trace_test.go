package table_test

import (
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/internal/link"
	"github.com/tablekit/tablekit/table"
)

type traced struct{ PartitionKey, RowKey string }

// TestTracerReachesSiblings: a table's tracer comes from the Service's
// TracingProvider and reaches query and batch through link only.
func TestTracerReachesSiblings(t *testing.T) {
	const ep = "http://127.0.0.1:10002/devstoreaccount1"
	const key = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
	rec := &testenv.Tracer{}
	withProvider := &table.Options{Azcore: azcore.ClientOptions{TracingProvider: rec.Provider()}}
	open := func(o *table.Options) any {
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
		t    any
		want bool
	}{
		{"provider set", open(withProvider), true},
		{"no provider", open(nil), false},
		{"Wrap", wrapped, false},
		{"not a table", "orders", false},
		{"nil", nil, false},
	}
	for _, tt := range tests {
		if got := link.Tracer(tt.t).Enabled(); got != tt.want {
			t.Errorf("%s: tracer enabled = %v, want %v", tt.name, got, tt.want)
		}
	}
}
