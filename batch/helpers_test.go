package batch_test

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/internal/backend"
	"github.com/tablekit/tablekit/table"
)

// storageBody is Table Storage's limit on a transaction's body, exclusive:
// a body must be smaller (Azurite's too).
var storageBody = backend.Of(backend.TableStorage).MaxTransactionBytes + 1

// item is the entity of most tests.
type item struct {
	PartitionKey string
	RowKey       string
	N            int64
	S            string `table:",omitempty"`
	T            string `table:",omitempty"`
	B            []byte `table:",omitempty"`
	table.Meta
}

// sentBatch is one $batch request as the server received it.
type sentBatch struct {
	size int    // body bytes
	ops  int    // operations in it
	pk   string // PartitionKey of its first operation
	rk   string // RowKey of its first operation: a retry repeats it
}

// batchRecorder is a per-call policy that records every $batch request
// (its real body: read, measured and rewound) and counts all requests.
type batchRecorder struct {
	mu      sync.Mutex
	batches []sentBatch
	calls   int
}

func (r *batchRecorder) Do(req *policy.Request) (*http.Response, error) {
	r.mu.Lock()
	r.calls++
	r.mu.Unlock()
	if strings.HasSuffix(req.Raw().URL.Path, "/$batch") && req.Body() != nil {
		b, err := io.ReadAll(req.Body())
		if err != nil {
			return nil, err
		}
		if err := req.RewindBody(); err != nil {
			return nil, err
		}
		sb := sentBatch{size: len(b), ops: bytes.Count(b, []byte("\r\nContent-Type: application/http\r\n"))}
		if i := bytes.Index(b, []byte("PartitionKey='")); i >= 0 {
			rest := b[i+len("PartitionKey='"):]
			if j := bytes.Index(rest, []byte("',RowKey='")); j >= 0 {
				sb.pk = string(rest[:j])
				rest = rest[j+len("',RowKey='"):]
				if k := bytes.IndexByte(rest, '\''); k >= 0 {
					sb.rk = string(rest[:k])
				}
			}
		} else if i := bytes.Index(b, []byte(`"PartitionKey":"`)); i >= 0 {
			rest := b[i+len(`"PartitionKey":"`):]
			sb.pk = string(rest[:bytes.IndexByte(rest, '"')])
			if k := bytes.Index(b, []byte(`"RowKey":"`)); k >= 0 {
				rest := b[k+len(`"RowKey":"`):]
				sb.rk = string(rest[:bytes.IndexByte(rest, '"')])
			}
		}
		r.mu.Lock()
		r.batches = append(r.batches, sb)
		r.mu.Unlock()
	}
	return req.Next()
}

func (r *batchRecorder) snapshot() (calls int, batches []sentBatch) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls, append([]sentBatch(nil), r.batches...)
}

// newRecordedTable creates a table of items for the test on Azurite with
// options o and deletes it at the end. rec, when not nil, records the
// requests of the returned handle.
func newRecordedTable(t testing.TB, rec *batchRecorder, o *table.Options) *table.Table[item] {
	t.Helper()
	env := testenv.Azurite(t)
	var opts table.Options
	if o != nil {
		opts = *o
	}
	if rec != nil {
		opts.Azcore.PerRetryPolicies = append([]policy.Policy{rec}, opts.Azcore.PerRetryPolicies...) // after the fast path swapped the body
	}
	return testenv.NewTable[item](t, env.NewService(t, &opts))
}

// readAll reads every entity of the table with aztables' pager.
func readAll(t testing.TB, tbl *table.Table[item]) map[string]item {
	t.Helper()
	return readWhere(t, tbl, "")
}

// readPartition reads one partition (pk: letters and digits) with
// aztables' pager.
func readPartition(t testing.TB, tbl *table.Table[item], pk string) map[string]item {
	t.Helper()
	return readWhere(t, tbl, "PartitionKey eq '"+pk+"'")
}

// readWhere reads the entities that match an OData filter ("": all) with
// aztables' pager.
func readWhere(t testing.TB, tbl *table.Table[item], filter string) map[string]item {
	t.Helper()
	ctx := testenv.Ctx(t)
	out := map[string]item{}
	top := int32(1000)
	opts := &aztables.ListEntitiesOptions{Top: &top}
	if filter != "" {
		opts.Filter = &filter
	}
	pager := tbl.Client().NewListEntitiesPager(opts)
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			t.Fatalf("list: %v", err)
		}
		for _, raw := range page.Entities {
			e, err := tbl.Unmarshal(raw)
			if err != nil {
				t.Fatalf("unmarshal: %v", err)
			}
			out[e.PartitionKey+"/"+e.RowKey] = e
		}
	}
	return out
}

// same compares what tests write: keys and properties, not Meta.
func same(a, b item) bool {
	return a.PartitionKey == b.PartitionKey && a.RowKey == b.RowKey && a.N == b.N && a.S == b.S && a.T == b.T && bytes.Equal(a.B, b.B)
}
