package cosmos_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit/devtools/testenv"
)

// TestBatchLimits plays Cosmos DB's 2 MiB $batch limit and its key rules
// inside a changeset, and writes a changeset whose upsert Azurite alone
// would refuse (over 1 MiB).
func TestBatchLimits(t *testing.T) {
	env, cs, tr := standIn(t, nil)
	c := newAzTable(t, service(t, env, cs.Endpoint(), tr))
	// Over 2 MiB, the stand-in refuses a $batch before reading it.
	err := post(t, tr, cs.Endpoint()+"/$batch", "multipart/mixed; boundary=batch_1", bytes.Repeat([]byte("x"), 2<<20+1))
	if got, code := status(t, err); got != 413 || code != "RequestEntityTooLarge" {
		t.Errorf("$batch of 2 MiB + 1 bytes: got %d %q, want 413 RequestEntityTooLarge", got, code)
	}
	add := func(e []byte) aztables.TransactionAction {
		return aztables.TransactionAction{ActionType: aztables.TransactionTypeAdd, Entity: e}
	}
	tests := []struct {
		name    string
		pk      string
		actions func(pk string) []aztables.TransactionAction
		status  int
		reply   []string // in the raw reply, in order
		written []string // RowKeys that exist afterwards; nil: none
		check   func(t *testing.T, reply string)
	}{
		{name: "1.9 MB body", pk: "fits",
			actions: func(pk string) []aztables.TransactionAction {
				return []aztables.TransactionAction{add(big(pk, "1", 620_000)), add(big(pk, "2", 620_000)), add(big(pk, "3", 620_000))}
			},
			written: []string{"1", "2", "3"}},
		{name: "long RowKey in operation 1", pk: "key", status: 202,
			actions: func(pk string) []aztables.TransactionAction {
				long := strings.Repeat("r", 256)
				return []aztables.TransactionAction{add(entity(pk, "1", nil)), add(entity(pk, long, nil)), add(entity(pk, "3", nil))}
			},
			reply: []string{"HTTP/1.1 424 Failed Dependency", "HTTP/1.1 400 Bad Request", `"1:The RowKey is 256 bytes`, "HTTP/1.1 424 Failed Dependency"}},
		{name: "reserved name in operation 0", pk: "name", status: 202,
			actions: func(pk string) []aztables.TransactionAction {
				return []aztables.TransactionAction{add(entity(pk, "1", map[string]any{"ResourceId": 1})), add(entity(pk, "2", nil))}
			},
			reply: []string{"HTTP/1.1 400 Bad Request", `"0:The property name \"ResourceId\"`, "HTTP/1.1 424 Failed Dependency"}},
		{name: "1.1 MB upsert and a merge", pk: "large",
			actions: func(pk string) []aztables.TransactionAction {
				return []aztables.TransactionAction{
					{ActionType: aztables.TransactionTypeInsertReplace, Entity: big(pk, "1", 1_100_000)},
					{ActionType: aztables.TransactionTypeInsertMerge, Entity: entity(pk, "2", map[string]any{"N": 2})},
				}
			},
			written: []string{"1", "2"},
			check: func(t *testing.T, reply string) {
				// The upsert is whole, and the reply carried its final ETag.
				if diff := sameProps(props(t, c, "large", "1"), big("large", "1", 1_100_000)); diff != "" {
					t.Errorf("large upsert differs in %s", diff)
				}
				resp, err := c.GetEntity(testenv.Ctx(t), "large", "1", nil)
				if err != nil {
					t.Fatal(err)
				}
				if want := "ETag: " + string(resp.ETag); !strings.Contains(reply, want) {
					t.Errorf("$batch reply: got %s, want the entity's current %s", short(reply), want)
				}
				if got, want := cs.Stats().LargeWrites, 1; got != want {
					t.Errorf("large writes: got %d, want %d", got, want)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			skipLarge(t, tt.name)
			_, err := c.SubmitTransaction(testenv.Ctx(t), tt.actions(tt.pk), nil)
			if got, _ := status(t, err); got != tt.status {
				t.Fatalf("status: got %d (%v), want %d", got, err, tt.status)
			}
			reply := tr.lastBody()
			at := 0
			for _, s := range tt.reply {
				i := strings.Index(reply[at:], s)
				if i < 0 {
					t.Fatalf("reply: got %s, want %q after byte %d", short(reply), s, at)
				}
				at += i + len(s)
			}
			var rks []string
			pager := c.NewListEntitiesPager(&aztables.ListEntitiesOptions{Filter: ptr(fmt.Sprintf("PartitionKey eq '%s'", tt.pk)), Select: ptr("RowKey")})
			for pager.More() {
				page, err := pager.NextPage(testenv.Ctx(t))
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range page.Entities {
					var k struct{ RowKey string }
					_ = jsonUnmarshalBytes(e, &k)
					rks = append(rks, k.RowKey)
				}
			}
			if got, want := strings.Join(sorted(rks), ","), strings.Join(tt.written, ","); got != want {
				t.Errorf("written: got %q, want %q", got, want)
			}
			if tt.check != nil {
				tt.check(t, reply)
			}
		})
	}
}
