package cosmos_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit/devtools/cosmos"
	"github.com/tablekit/tablekit/devtools/testenv"
)

// TestEntityLimits plays Cosmos DB's entity rules through aztables: an
// entity up to 2 MiB is written by every verb (Azurite alone refuses an
// update, upsert or merge over 1 MiB), one over it is refused with 413 and
// never reaches Azurite, keys and reserved names are checked.
func TestEntityLimits(t *testing.T) {
	env, cs, tr := standIn(t, nil)
	c, name := newNamedTable(t, service(t, env, cs.Endpoint(), tr))
	if _, err := c.AddEntity(testenv.Ctx(t), entity("p", "old", map[string]any{"Kept": "yes", "P000": "short"}), nil); err != nil {
		t.Fatal(err)
	}
	stale := azcore.ETag(`W/"datetime'2020-01-01T00%3A00%3A00.0000000Z'"`)
	tests := []struct {
		name   string
		write  func() error
		status int
		code   string
		stored []byte // read back under this entity's keys, when set
		count  func(cosmos.Stats) int
	}{
		{name: "insert 1.1 MB",
			write: func() error { _, err := c.AddEntity(testenv.Ctx(t), big("p", "in11", 1_100_000), nil); return err }},
		{name: "insert 2.2 MB", status: 413, code: "RequestEntityTooLarge", count: func(s cosmos.Stats) int { return s.TooLarge },
			write: func() error {
				return post(t, tr, cs.Endpoint()+"/"+name, "application/json", big("p", "in22", 2_200_000))
			}},
		{name: "upsert replace 1.1 MB", stored: big("p", "up11", 1_100_000), count: func(s cosmos.Stats) int { return s.LargeWrites },
			write: func() error {
				_, err := c.UpsertEntity(testenv.Ctx(t), big("p", "up11", 1_100_000), &aztables.UpsertEntityOptions{UpdateMode: aztables.UpdateModeReplace})
				return err
			}},
		{name: "merge 1.1 MB onto an entity", stored: big("p", "old", 1_100_000), count: func(s cosmos.Stats) int { return s.LargeWrites },
			write: func() error {
				_, err := c.UpsertEntity(testenv.Ctx(t), big("p", "old", 1_100_000), &aztables.UpsertEntityOptions{UpdateMode: aztables.UpdateModeMerge})
				return err
			}},
		{name: "update 1.1 MB with a stale ETag", status: 412, code: "UpdateConditionNotSatisfied",
			write: func() error {
				_, err := c.UpdateEntity(testenv.Ctx(t), big("p", "up11", 1_100_000), &aztables.UpdateEntityOptions{IfMatch: &stale, UpdateMode: aztables.UpdateModeReplace})
				return err
			}},
		{name: "RowKey of 255 bytes", stored: entity("p", strings.Repeat("r", 255), nil),
			write: func() error {
				_, err := c.AddEntity(testenv.Ctx(t), entity("p", strings.Repeat("r", 255), nil), nil)
				return err
			}},
		{name: "RowKey of 256 bytes", status: 400, code: "BadRequest", count: func(s cosmos.Stats) int { return s.Refused },
			write: func() error {
				_, err := c.AddEntity(testenv.Ctx(t), entity("p", strings.Repeat("r", 256), nil), nil)
				return err
			}},
		{name: "RowKey of 128 two-byte characters", status: 400, code: "BadRequest", count: func(s cosmos.Stats) int { return s.Refused },
			write: func() error {
				_, err := c.AddEntity(testenv.Ctx(t), entity("p", strings.Repeat("é", 128), nil), nil)
				return err
			}},
		{name: "PartitionKey of 1025 bytes", status: 400, code: "BadRequest", count: func(s cosmos.Stats) int { return s.Refused },
			write: func() error {
				_, err := c.AddEntity(testenv.Ctx(t), entity(strings.Repeat("k", 1025), "r", nil), nil)
				return err
			}},
		{name: "reserved property rid", status: 400, code: "BadRequest", count: func(s cosmos.Stats) int { return s.Refused },
			write: func() error {
				_, err := c.AddEntity(testenv.Ctx(t), entity("p", "rid", map[string]any{"rid": 1}), nil)
				return err
			}},
		{name: "reserved property etag in an upsert", status: 400, code: "BadRequest", count: func(s cosmos.Stats) int { return s.Refused },
			write: func() error {
				_, err := c.UpsertEntity(testenv.Ctx(t), entity("p", "etag", map[string]any{"etag": "x"}), nil)
				return err
			}},
		{name: "property Rid is not reserved", stored: entity("p", "Rid", map[string]any{"Rid": "x"}),
			write: func() error {
				_, err := c.AddEntity(testenv.Ctx(t), entity("p", "Rid", map[string]any{"Rid": "x"}), nil)
				return err
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			skipLarge(t, tt.name)
			cs.Reset()
			got, code := status(t, tt.write())
			if got != tt.status || code != tt.code {
				t.Fatalf("got %d %q, want %d %q", got, code, tt.status, tt.code)
			}
			if tt.count != nil {
				if n := tt.count(cs.Stats()); n != 1 {
					t.Errorf("counted: got %d, want 1", n)
				}
			}
			if tt.stored != nil {
				pk, rk := keysOf(t, tt.stored)
				if diff := sameProps(props(t, c, pk, rk), tt.stored); diff != "" {
					t.Errorf("stored entity differs in %s", diff)
				}
			}
		})
	}
	// The refused 2.2 MB entity never reached Azurite.
	for _, rk := range []string{"in22"} {
		_, err := c.GetEntity(testenv.Ctx(t), "p", rk, nil)
		if got, _ := status(t, err); got != http.StatusNotFound {
			t.Errorf("entity %s: got %v, want 404", rk, err)
		}
	}
	// The merge kept what was there.
	if got := props(t, c, "p", "old")["Kept"]; got != "yes" {
		t.Errorf("merged entity's Kept: got %v, want yes", got)
	}
}

func keysOf(t *testing.T, e []byte) (string, string) {
	t.Helper()
	var k struct{ PartitionKey, RowKey string }
	if err := json.Unmarshal(e, &k); err != nil {
		t.Fatal(err)
	}
	return k.PartitionKey, k.RowKey
}
