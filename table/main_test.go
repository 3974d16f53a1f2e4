package table_test

import (
	"context"
	"net/http"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"

	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/table"
)

func TestMain(m *testing.M) { os.Exit(testenv.Run(m)) }

func ctxT(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// recorder is a transport that forwards to a real HTTP client and records
// what was sent and received, so tests can prove that no request was made.
type recorder struct {
	next  *http.Client
	mu    sync.Mutex
	reqs  []*http.Request
	bytes int64 // response body bytes received
}

func (r *recorder) Do(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	r.reqs = append(r.reqs, req)
	r.mu.Unlock()
	resp, err := r.next.Do(req)
	if err == nil && resp.ContentLength > 0 {
		r.mu.Lock()
		r.bytes += resp.ContentLength
		r.mu.Unlock()
	}
	return resp, err
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.reqs)
}

func (r *recorder) last() *http.Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.reqs[len(r.reqs)-1]
}

var _ policy.Transporter = (*recorder)(nil)

// newTable opens a new, created table of T on Azurite through a recorder.
func newTable[T any](t *testing.T, o *table.Options) (*table.Table[T], *recorder) {
	t.Helper()
	env := testenv.Azurite(t)
	rec := &recorder{next: table.NewHTTPClient(nil)}
	var opts table.Options
	if o != nil {
		opts = *o
	}
	opts.Transport = rec
	svc, err := table.NewServiceWithSharedKey(env.Endpoint, env.Account, env.Key, &opts)
	if err != nil {
		t.Fatal(err)
	}
	name := testenv.TableName(t)
	tbl, err := table.New[T](svc, name)
	if err != nil {
		t.Fatal(err)
	}
	if err := tbl.CreateTable(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tbl.DeleteTable(context.Background()) })
	return tbl, rec
}
