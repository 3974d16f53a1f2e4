// Wrapping existing aztables code: keep every call, change only the options.
//
// Problem: an application already talks to Table storage through the
// official aztables package, and with its default options
//   - every insert makes the service send the whole entity back,
//   - the connection pool keeps 10 idle connections per host, so bursts of
//     more parallel requests than that keep opening and closing connections,
//   - an insert whose response was lost is retried and then fails with
//     409 EntityAlreadyExists, indistinguishable from a real conflict, after
//     a first retry delay of about 0.8 s.
//
// Pattern: build the same aztables client with table.ClientOptions(nil).
// The application code below (insertOrders) does not change at all; it gets
// tablekit's transport (pool sized for parallel work, TCP_NODELAY), inserts
// that ask for no echo (Prefer: return-no-content), and tablekit's retry
// layer (an immediate first retry of a broken connection, and a lost insert
// reported as tablekit.ErrMaybeCommitted so the caller can check it).
//
// Guarantee checked: with table.ClientOptions the inserts download no entity
// bodies (AddEntity's Value is "null"), and an insert whose response is lost
// is reported as ambiguous, not as a plain conflict. The other numbers
// (connections, timings) are printed for comparison only.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptrace"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/table"
)

const (
	rounds  = 15
	workers = 32
)

// insertOrders is the "existing application code": plain aztables calls.
// Like a request handler fanning out, it runs rounds of workers parallel
// inserts and returns the Value of the last AddEntity response.
func insertOrders(ctx context.Context, client *aztables.Client) (lastValue []byte, err error) {
	for r := range rounds {
		var (
			wg   sync.WaitGroup
			mu   sync.Mutex
			errs = make(chan error, workers)
		)
		for w := range workers {
			wg.Go(func() {
				e := aztables.EDMEntity{
					Entity:     aztables.Entity{PartitionKey: fmt.Sprintf("customer%02d", w), RowKey: fmt.Sprintf("%04d", r)},
					Properties: map[string]any{"Item": "widget", "Note": strings.Repeat("n", 500), "Qty": int32(r)},
				}
				b, err := json.Marshal(e)
				if err == nil {
					var resp aztables.AddEntityResponse
					if resp, err = client.AddEntity(ctx, b, nil); err == nil {
						mu.Lock()
						lastValue = resp.Value
						mu.Unlock()
					}
				}
				errs <- err
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				return nil, err
			}
		}
	}
	return lastValue, nil
}

func main() {
	log.SetFlags(0)
	log.SetPrefix("wrap-aztables: ")
	if err := run(); err != nil {
		log.Fatalf("FAIL: %v", err)
	}
}

type result struct {
	bytes, conns int64
	value        []byte
	lostErr      error
	lostTook     time.Duration
}

func run() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// aztables does not understand "UseDevelopmentStorage=true"; tablekit's
	// parser does, and gives the endpoint and key for a plain aztables client.
	cs, err := table.ParseConnectionString(connectionString())
	if err != nil {
		return err
	}
	cred, err := aztables.NewSharedKeyCredential(cs.AccountName, cs.AccountKey)
	if err != nil {
		return err
	}

	// Both clients get the same instruments (a meter and a fault injector),
	// added as azcore per-retry policies so they see every attempt. The
	// only difference between the two runs is the base options.
	measure := func(label string, base func(azcore.ClientOptions) *aztables.ClientOptions) (result, error) {
		var r result
		m, f := &meter{}, &loseResponse{}
		svc, err := aztables.NewServiceClientWithSharedKey(cs.Endpoint, cred,
			base(azcore.ClientOptions{PerRetryPolicies: []policy.Policy{f, m}}))
		if err != nil {
			return r, err
		}
		client := svc.NewClient(uniqueName("wrap"))
		if _, err := client.CreateTable(ctx, nil); err != nil {
			return r, err
		}
		defer client.Delete(context.WithoutCancel(ctx), nil)

		m.reset()
		if r.value, err = insertOrders(ctx, client); err != nil {
			return r, fmt.Errorf("%s: %w", label, err)
		}
		r.bytes, r.conns = m.bytes.Load(), m.conns.Load()

		// The service stores this insert, but its response never arrives.
		f.armed.Store(true)
		start := time.Now()
		_, r.lostErr = client.AddEntity(ctx, []byte(`{"PartitionKey":"lost","RowKey":"1"}`), nil)
		r.lostTook = time.Since(start)
		return r, nil
	}

	plain, err := measure("plain", func(o azcore.ClientOptions) *aztables.ClientOptions {
		return &aztables.ClientOptions{ClientOptions: o} // aztables' defaults
	})
	if err != nil {
		return err
	}
	kit, err := measure("tablekit", func(o azcore.ClientOptions) *aztables.ClientOptions {
		return table.ClientOptions(&table.Options{Azcore: o}) // the one-line change
	})
	if err != nil {
		return err
	}

	fmt.Printf("%d inserts, %d at a time, the same aztables code twice:\n", rounds*workers, workers)
	fmt.Printf("  %-30s %-33s %s\n", "", "aztables defaults", "table.ClientOptions(nil)")
	fmt.Printf("  %-30s %-33d %d\n", "response bytes downloaded", plain.bytes, kit.bytes)
	fmt.Printf("  %-30s %-33s %s\n", "AddEntity Value", short(plain.value), short(kit.value))
	fmt.Printf("  %-30s %-33d %d\n", "connections opened", plain.conns, kit.conns)
	fmt.Printf("  %-30s %-33s %s\n", "insert with lost response", outcome(plain.lostErr), outcome(kit.lostErr))
	fmt.Printf("  %-30s %-33s %s\n", "  ...reported after", plain.lostTook.Round(time.Millisecond), kit.lostTook.Round(time.Millisecond))

	if kit.bytes != 0 || string(kit.value) != "null" {
		return fmt.Errorf("with table.ClientOptions inserts downloaded %d bytes (Value %q), want none", kit.bytes, short(kit.value))
	}
	if !errors.Is(kit.lostErr, tablekit.ErrMaybeCommitted) {
		return fmt.Errorf("with table.ClientOptions a lost insert response gave %v, want tablekit.ErrMaybeCommitted", kit.lostErr)
	}
	fmt.Println("OK: same code, no entity echo, and a lost insert is reported as ambiguous")
	return nil
}

func outcome(err error) string {
	var re *azcore.ResponseError
	switch {
	case err == nil:
		return "success"
	case errors.Is(err, tablekit.ErrMaybeCommitted):
		return "ErrMaybeCommitted"
	case errors.As(err, &re):
		return fmt.Sprintf("%d %s", re.StatusCode, re.ErrorCode)
	}
	return err.Error()
}

func short(b []byte) string {
	if len(b) > 24 {
		return fmt.Sprintf("%s... (%d bytes)", b[:16], len(b))
	}
	return string(b)
}

// meter counts response body bytes and new connections of every attempt.
type meter struct{ bytes, conns atomic.Int64 }

func (m *meter) reset() { m.bytes.Store(0); m.conns.Store(0) }

func (m *meter) Do(req *policy.Request) (*http.Response, error) {
	trace := &httptrace.ClientTrace{GotConn: func(info httptrace.GotConnInfo) {
		if !info.Reused {
			m.conns.Add(1)
		}
	}}
	resp, err := req.WithContext(httptrace.WithClientTrace(req.Raw().Context(), trace)).Next()
	if resp != nil && resp.Body != nil {
		resp.Body = countingBody{resp.Body, &m.bytes}
	}
	return resp, err
}

type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (c countingBody) Read(p []byte) (int, error) {
	n, err := c.ReadCloser.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// loseResponse, once armed, lets the next request reach the service and then
// drops its response as a reset connection would: the insert is committed,
// but the client cannot know.
type loseResponse struct{ armed atomic.Bool }

func (f *loseResponse) Do(req *policy.Request) (*http.Response, error) {
	if !f.armed.CompareAndSwap(true, false) {
		return req.Next()
	}
	if resp, err := req.Next(); err == nil {
		resp.Body.Close()
	}
	return nil, &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}
}

// connectionString returns TABLEKIT_CONNECTION_STRING, or the local Azurite
// development account when it is not set.
func connectionString() string {
	if cs := os.Getenv("TABLEKIT_CONNECTION_STRING"); cs != "" {
		return cs
	}
	return "UseDevelopmentStorage=true"
}

// uniqueName returns prefix plus random hex: a fresh table per run, because a
// deleted table's name cannot be reused for 40 seconds or more.
func uniqueName(prefix string) string {
	b := make([]byte, 4)
	rand.Read(b)
	return prefix + hex.EncodeToString(b)
}
