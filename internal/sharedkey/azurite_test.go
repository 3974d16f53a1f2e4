package sharedkey_test

import (
	"errors"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/internal/sharedkey"
)

func TestMain(m *testing.M) { os.Exit(testenv.Run(m)) }

// TestAzuriteAcceptsSignLite: Azurite checks every signature of tablekit's
// Shared Key Lite policy, on every kind of request aztables builds (entity
// paths with quotes and non-ASCII keys, queries, comp= requests), and on
// the account's secondary path.
func TestAzuriteAcceptsSignLite(t *testing.T) {
	env := testenv.Azurite(t)
	ctx := testenv.Context(t, time.Minute)
	key, err := sharedkey.New(env.Account, env.Key)
	if err != nil {
		t.Fatal(err)
	}
	open := func(endpoint string) *aztables.ServiceClient {
		o := &aztables.ClientOptions{}
		o.PerRetryPolicies = []policy.Policy{key.Policy()}
		o.Retry = policy.RetryOptions{MaxRetries: -1}
		s, err := aztables.NewServiceClientWithNoCredential(endpoint, o)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := open(env.Endpoint)
	name := testenv.TableName(t)
	c := s.NewClient(name)
	pk, rk := "O'Brien Zoë 日本", "a+b (c) ~!*$;,@"
	body := []byte(`{"PartitionKey":"O'Brien Zoë 日本","RowKey":"a+b (c) ~!*$;,@","N":1}`)
	steps := []struct {
		name string
		call func() error
	}{
		{"create table", func() error { _, err := s.CreateTable(ctx, name, nil); return err }},
		{"add", func() error { _, err := c.AddEntity(ctx, body, nil); return err }},
		{"get", func() error { _, err := c.GetEntity(ctx, pk, rk, nil); return err }},
		{"upsert", func() error {
			_, err := c.UpsertEntity(ctx, body, &aztables.UpsertEntityOptions{UpdateMode: aztables.UpdateModeMerge})
			return err
		}},
		{"query", func() error {
			f := "PartitionKey eq 'O''Brien Zoë 日本'"
			_, err := c.NewListEntitiesPager(&aztables.ListEntitiesOptions{Filter: &f}).NextPage(ctx)
			return err
		}},
		{"transaction", func() error {
			_, err := c.SubmitTransaction(ctx, []aztables.TransactionAction{{ActionType: aztables.TransactionTypeInsertReplace, Entity: []byte(`{"PartitionKey":"p","RowKey":"r"}`)}}, nil)
			return err
		}},
		{"delete", func() error { _, err := c.DeleteEntity(ctx, pk, rk, nil); return err }},
		{"access policy (comp=acl)", func() error { _, err := c.GetAccessPolicy(ctx, nil); return err }},
		{"service properties (comp=properties)", func() error { _, err := s.GetProperties(ctx, nil); return err }},
		{"list tables", func() error { _, err := s.NewListTablesPager(nil).NextPage(ctx); return err }},
		{"stats on the secondary path (comp=stats)", func() error {
			_, err := open(env.Endpoint+"-secondary").GetStatistics(ctx, nil)
			return err
		}},
		{"delete table", func() error { _, err := s.DeleteTable(ctx, name, nil); return err }},
	}
	for _, st := range steps {
		if err := st.call(); err != nil {
			t.Errorf("%s: %v", st.name, err)
		}
	}
	// The check is real: another key's signature is refused.
	if key, err = sharedkey.New(env.Account, "b3RoZXJrZXk="); err != nil {
		t.Fatal(err)
	}
	var re *azcore.ResponseError
	if _, err := open(env.Endpoint).GetProperties(ctx, nil); !errors.As(err, &re) || re.StatusCode != http.StatusForbidden {
		t.Errorf("signed with another key: %v, want 403", err)
	}
}
