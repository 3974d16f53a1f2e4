package cosmos_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit/devtools/cosmos"
	"github.com/tablekit/tablekit/devtools/testenv"
)

func TestMain(m *testing.M) { os.Exit(testenv.Run(m)) }

// capture is a transport that keeps the body of the last response, so that
// a test can read what aztables does not return (a $batch reply).
type capture struct {
	next *http.Client
	mu   sync.Mutex
	last []byte
}

func (c *capture) Do(req *http.Request) (*http.Response, error) {
	resp, err := c.next.Do(req)
	if err != nil {
		return nil, err
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(b))
	c.mu.Lock()
	c.last = b
	c.mu.Unlock()
	return resp, nil
}

func (c *capture) lastBody() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return string(c.last)
}

// standIn starts a stand-in with options o in front of the binary's
// Azurite and returns a capturing transport to it.
func standIn(t *testing.T, o *cosmos.Options) (*testenv.Env, *cosmos.Server, *capture) {
	t.Helper()
	env := testenv.Azurite(t)
	cs := env.Cosmos(t, o)
	hc := cs.Client()
	t.Cleanup(hc.CloseIdleConnections)
	return env, cs, &capture{next: hc}
}

// service is an aztables service client on endpoint through tr, with
// azcore's retries off so that every answer reaches the test.
func service(t *testing.T, env *testenv.Env, endpoint string, tr policy.Transporter) *aztables.ServiceClient {
	t.Helper()
	opts := &aztables.ClientOptions{ClientOptions: azcore.ClientOptions{Transport: tr, Retry: policy.RetryOptions{MaxRetries: -1}}}
	svc, err := aztables.NewServiceClientWithSharedKey(endpoint, env.Credential(t), opts)
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

// newAzTable creates a uniquely named table through svc, an aztables
// client, deleted at cleanup.
func newAzTable(t *testing.T, svc *aztables.ServiceClient) *aztables.Client {
	c, _ := newNamedTable(t, svc)
	return c
}

// newNamedTable is newAzTable that also returns the table's name.
func newNamedTable(t *testing.T, svc *aztables.ServiceClient) (*aztables.Client, string) {
	t.Helper()
	name := testenv.TableName(t)
	c := svc.NewClient(name)
	if _, err := c.CreateTable(testenv.Ctx(t), nil); err != nil {
		t.Fatalf("create table %s: %v", name, err)
	}
	t.Cleanup(func() { _, _ = c.Delete(context.Background(), nil) })
	return c, name
}

// entity is the JSON of an entity with the given properties.
func entity(pk, rk string, props map[string]any) []byte {
	m := map[string]any{"PartitionKey": pk, "RowKey": rk}
	for k, v := range props {
		m[k] = v
	}
	b, _ := json.Marshal(m)
	return b
}

// big is the JSON of an entity of about n bytes: string properties of
// 30,000 ASCII characters (under the 32 Ki per-string limit) named P000....
// Made once per arguments: the race detector makes encoding them dear.
func big(pk, rk string, n int) []byte {
	key := fmt.Sprint(pk, "/", rk, "/", n)
	if b, ok := bigs.Load(key); ok {
		return b.([]byte)
	}
	b := makeBig(pk, rk, n)
	bigs.Store(key, b)
	return b
}

var bigs sync.Map

func makeBig(pk, rk string, n int) []byte {
	props := map[string]any{}
	for i := 0; 30000*i < n; i++ {
		props[fmt.Sprintf("P%03d", i)] = strings.Repeat(string(rune('a'+i%26)), 30000)
	}
	return entity(pk, rk, props)
}

// status is the status and error code of an azcore error; 0 for nil.
func status(t *testing.T, err error) (int, string) {
	t.Helper()
	if err == nil {
		return 0, ""
	}
	var re *azcore.ResponseError
	if !errors.As(err, &re) {
		t.Fatalf("got %v, want a *azcore.ResponseError", err)
	}
	return re.StatusCode, re.ErrorCode
}

// props reads an entity back as a map.
func props(t *testing.T, c *aztables.Client, pk, rk string) map[string]any {
	t.Helper()
	resp, err := c.GetEntity(testenv.Ctx(t), pk, rk, nil)
	if err != nil {
		t.Fatalf("get %s/%s: %v", pk, rk, err)
	}
	var m map[string]any
	if err := json.Unmarshal(resp.Value, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// sameProps reports the user properties of want missing or different in got.
func sameProps(got map[string]any, want []byte) string {
	var w map[string]any
	_ = json.Unmarshal(want, &w)
	var diffs []string
	for k, v := range w {
		if got[k] != v {
			diffs = append(diffs, k)
		}
	}
	return strings.Join(diffs, ",")
}

func ptr[T any](v T) *T { return &v }

func jsonUnmarshalBytes(b []byte, v any) error { return json.Unmarshal(b, v) }

func sorted(s []string) []string { slices.Sort(s); return s }

// short cuts a body for a failure message.
func short(s string) string {
	if len(s) > 400 {
		return s[:400] + "..."
	}
	return s
}

// skipLarge skips a case that writes megabytes under -short.
func skipLarge(t *testing.T, name string) {
	if testing.Short() && strings.Contains(name, " MB") {
		t.Skip("megabyte entities under -short")
	}
}

// post sends body unsigned through tr and returns azcore's error for the
// answer (nil for a success): enough for the stand-in's own refusals, which
// it answers before Azurite checks credentials.
func post(t *testing.T, tr policy.Transporter, url, contentType string, body []byte) error {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	resp, err := tr.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode < 300 {
		return nil
	}
	return runtime.NewResponseError(resp)
}
