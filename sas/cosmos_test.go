package sas_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/sas"
	"github.com/tablekit/tablekit/table"
)

// TestPoliciesOnCosmos: Cosmos DB for Table has no stored access policies.
// The policy helpers, given a client tablekit built for a Cosmos DB
// endpoint, refuse before sending anything (the stand-in counts what
// arrives) with an error that names Cosmos DB and matches
// table.ErrUnsupported.
func TestPoliciesOnCosmos(t *testing.T) {
	env := testenv.Azurite(t)
	cs := env.Cosmos(t, nil)
	svc := env.CosmosService(t, cs, nil)
	tbl := testenv.NewTable[struct{ PartitionKey, RowKey string }](t, svc)
	client := tbl.Client()
	ctx := ctxT(t)
	p := sas.Policy{ID: "readers", Permissions: sas.Read, Expiry: time.Now().Add(time.Hour)}
	tests := []struct {
		name string
		call func() error
	}{
		{"GetPolicies", func() error { _, err := sas.GetPolicies(ctx, client); return err }},
		{"SetPolicy", func() error { return sas.SetPolicy(ctx, client, p) }},
		{"RevokePolicy", func() error { return sas.RevokePolicy(ctx, client, p.ID) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs.Reset()
			err := tt.call()
			if !errors.Is(err, table.ErrUnsupported) || !strings.Contains(err.Error(), "Azure Cosmos DB for Table") {
				t.Errorf("got %v, want table.ErrUnsupported naming Cosmos DB", err)
			}
			if got := cs.Stats(); got.Requests != 0 {
				t.Errorf("the stand-in got %d requests, want none", got.Requests)
			}
		})
	}
}
