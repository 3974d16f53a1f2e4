package cosmos_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit/devtools/testenv"
)

// TestAzuriteLimits pins the limits of the pinned Azurite that decide what
// the stand-in must do itself: an entity over 1 MiB is refused on update,
// upsert and merge (alone or in a changeset) but inserted, a changeset's
// limit is per operation (its body may pass 1 MiB), strings stop at 32 Ki
// UTF-16 units and keys at 512 characters. When an Azurite upgrade changes
// one, this test says which, and large.go or the package documentation
// follows.
func TestAzuriteLimits(t *testing.T) {
	if testing.Short() {
		t.Skip("megabyte entities under -short")
	}
	env := testenv.Azurite(t)
	tr := &capture{next: http.DefaultClient}
	opts := &aztables.ClientOptions{ClientOptions: azcore.ClientOptions{Transport: tr, Retry: policy.RetryOptions{MaxRetries: -1}}}
	_, c := env.NewTable(t, opts)
	replace := &aztables.UpsertEntityOptions{UpdateMode: aztables.UpdateModeReplace}
	merge := &aztables.UpsertEntityOptions{UpdateMode: aztables.UpdateModeMerge}
	tx := func(ty aztables.TransactionType, entities ...[]byte) error {
		var actions []aztables.TransactionAction
		for _, e := range entities {
			actions = append(actions, aztables.TransactionAction{ActionType: ty, Entity: e})
		}
		_, err := c.SubmitTransaction(testenv.Ctx(t), actions, nil)
		return err
	}
	tests := []struct {
		name   string
		write  func() error
		status int
		code   string
		reply  string // in the raw reply, for a failed changeset
	}{
		{name: "insert 1.1 MB", write: func() error { _, err := c.AddEntity(testenv.Ctx(t), big("a", "1", 1_100_000), nil); return err }},
		{name: "upsert 1,000,000 bytes", write: func() error { _, err := c.UpsertEntity(testenv.Ctx(t), big("a", "2", 1_000_000), replace); return err }},
		{name: "upsert replace 1.1 MB", status: 400, code: "EntityTooLarge",
			write: func() error { _, err := c.UpsertEntity(testenv.Ctx(t), big("a", "1", 1_100_000), replace); return err }},
		{name: "upsert merge 1.1 MB", status: 400, code: "EntityTooLarge",
			write: func() error { _, err := c.UpsertEntity(testenv.Ctx(t), big("a", "1", 1_100_000), merge); return err }},
		{name: "changeset upsert of 1.1 MB", status: 202, reply: "EntityTooLarge",
			write: func() error { return tx(aztables.TransactionTypeInsertReplace, big("b", "1", 1_100_000)) }},
		{name: "changeset of three 700 KB upserts",
			write: func() error {
				return tx(aztables.TransactionTypeInsertReplace, big("c", "1", 700_000), big("c", "2", 700_000), big("c", "3", 700_000))
			}},
		{name: "string of 32,768 characters", write: func() error {
			_, err := c.AddEntity(testenv.Ctx(t), entity("d", "1", map[string]any{"S": strings.Repeat("s", 32768)}), nil)
			return err
		}},
		{name: "string of 32,769 characters", status: 400, code: "PropertyValueTooLarge", write: func() error {
			_, err := c.AddEntity(testenv.Ctx(t), entity("d", "2", map[string]any{"S": strings.Repeat("s", 32769)}), nil)
			return err
		}},
		{name: "PartitionKey of 512 characters", write: func() error {
			_, err := c.AddEntity(testenv.Ctx(t), entity(strings.Repeat("k", 512), "1", nil), nil)
			return err
		}},
		{name: "PartitionKey of 513 characters", status: 400, code: "InvalidInput", write: func() error {
			_, err := c.AddEntity(testenv.Ctx(t), entity(strings.Repeat("k", 513), "1", nil), nil)
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, code := status(t, tt.write())
			if got != tt.status || code != tt.code {
				t.Fatalf("got %d %q, want %d %q", got, code, tt.status, tt.code)
			}
			if tt.reply != "" && !strings.Contains(tr.lastBody(), tt.reply) {
				t.Errorf("reply: got %s, want %s in it", short(tr.lastBody()), tt.reply)
			}
		})
	}
}
