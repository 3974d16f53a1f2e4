package table_test

import (
	"context"
	"io"
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
	next     *http.Client
	mu       sync.Mutex
	reqs     []*http.Request
	statuses []int // of every response, 0 for a transport error
	bytes    int64 // response body bytes read, chunked bodies included
}

func (r *recorder) Do(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	r.reqs = append(r.reqs, req)
	r.mu.Unlock()
	resp, err := r.next.Do(req)
	status := 0
	if err == nil {
		status = resp.StatusCode
		resp.Body = &countingBody{ReadCloser: resp.Body, r: r}
	}
	r.mu.Lock()
	r.statuses = append(r.statuses, status)
	r.mu.Unlock()
	return resp, err
}

// countingBody adds what is read from a response body to the recorder.
type countingBody struct {
	io.ReadCloser
	r *recorder
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.r.mu.Lock()
	b.r.bytes += int64(n)
	b.r.mu.Unlock()
	return n, err
}

func (r *recorder) lastStatus() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.statuses[len(r.statuses)-1]
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
	opts.NoFastPath = opts.NoFastPath || testenv.FastPathOff()
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
