package sas_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/sas"
)

// TestPoliciesOnCosmos: Cosmos DB for Table has no stored access policies.
// The policy functions, given a Service of a Cosmos DB endpoint, refuse before sending anything (the stand-in counts what
// arrives) with an error that names Cosmos DB and matches
// tablekit.ErrUnsupported.
func TestPoliciesOnCosmos(t *testing.T) {
	env := testenv.Azurite(t)
	cs := env.Cosmos(t, nil)
	svc := env.CosmosService(t, cs, nil)
	tbl := testenv.NewTable[struct{ PartitionKey, RowKey string }](t, svc)
	name := tbl.Name()
	ctx := testenv.Ctx(t)
	p := sas.Policy{ID: "readers", Permissions: sas.Read, Expiry: time.Now().Add(time.Hour)}
	tests := []struct {
		name string
		call func() error
	}{
		{"Policies", func() error { _, err := sas.Policies(ctx, svc, name); return err }},
		{"SetPolicies", func() error { return sas.SetPolicies(ctx, svc, name, []sas.Policy{p}) }},
		{"SetPolicies none", func() error { return sas.SetPolicies(ctx, svc, name, nil) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs.Reset()
			err := tt.call()
			if !errors.Is(err, tablekit.ErrUnsupported) || !strings.Contains(err.Error(), "Azure Cosmos DB for Table") {
				t.Errorf("got %v, want tablekit.ErrUnsupported naming Cosmos DB", err)
			}
			if got := cs.Stats(); got.Requests != 0 {
				t.Errorf("the stand-in got %d requests, want none", got.Requests)
			}
		})
	}
}
