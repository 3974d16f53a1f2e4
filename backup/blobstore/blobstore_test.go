package blobstore_test

import (
	"errors"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/sas"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/backup/blobstore"
	"github.com/tablekit/tablekit/devtools/faults"
	"github.com/tablekit/tablekit/devtools/testenv"
)

func TestMain(m *testing.M) { os.Exit(testenv.Run(m)) }

func TestStoreContract(t *testing.T) {
	b := testenv.AzuriteBlob(t)
	cases := []struct {
		name string
		open func(container string) (*blobstore.Store, error)
	}{
		{"shared key, prefix", func(c string) (*blobstore.Store, error) {
			return blobstore.NewWithSharedKey(b.Endpoint+"/"+c+"/nightly/orders", b.Account, b.Key, nil)
		}},
		{"shared key, no prefix", func(c string) (*blobstore.Store, error) {
			return blobstore.NewWithSharedKey(b.Endpoint+"/"+c, b.Account, b.Key, nil)
		}},
		{"connection string", func(c string) (*blobstore.Store, error) {
			return blobstore.NewFromConnectionString(b.ConnectionString, c, "p", nil)
		}},
		{"container SAS, prefix", func(c string) (*blobstore.Store, error) {
			return blobstore.NewWithSAS(containerSAS(t, b, c, "nightly"), nil)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st, err := tc.open(testenv.ContainerName(t))
			if err != nil {
				t.Fatal(err)
			}
			testenv.CheckStore(t, st)
		})
	}
}

// TestTokenCredential holds the store opened with an azcore.TokenCredential
// to the contract, against Azurite's blob service over https with OAuth
// (a fixed token: Azurite checks its audience, issuer and times, not its
// signature), and checks that a token for another audience is refused.
func TestTokenCredential(t *testing.T) {
	b := testenv.AzuriteBlobTLS(t)
	o := &blobstore.Options{}
	o.Client.Transport = b.Client
	st, err := blobstore.New(b.Endpoint+"/"+testenv.ContainerName(t)+"/nightly", testenv.StaticToken{}, o)
	if err != nil {
		t.Fatal(err)
	}
	testenv.CheckStore(t, st)

	other, err := blobstore.New(b.Endpoint+"/"+testenv.ContainerName(t)+"x", testenv.StaticToken{Audience: "https://vault.azure.net"}, o)
	if err != nil {
		t.Fatal(err)
	}
	err = other.Put(testenv.Ctx(t), "f", strings.NewReader("x"))
	var se *tablekit.ServiceError
	if !errors.As(err, &se) || (se.StatusCode != http.StatusUnauthorized && se.StatusCode != http.StatusForbidden) {
		t.Errorf("Put with a token for another audience: got %v, want a 401 or 403 ServiceError", err)
	}
}

// containerSAS creates the container (a container SAS cannot) and returns
// its URL with prefix and a SAS for read, add, create, write, delete and list.
func containerSAS(t *testing.T, b *testenv.BlobEnv, name, prefix string) string {
	t.Helper()
	cred, err := container.NewSharedKeyCredential(b.Account, b.Key)
	if err != nil {
		t.Fatal(err)
	}
	c, err := container.NewClientWithSharedKeyCredential(b.Endpoint+"/"+name, cred, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Create(testenv.Ctx(t), nil); err != nil {
		t.Fatal(err)
	}
	perms := sas.ContainerPermissions{Read: true, Add: true, Create: true, Write: true, Delete: true, List: true}
	raw, err := c.GetSASURL(perms, time.Now().Add(time.Hour), nil)
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	u.Path += "/" + prefix
	return u.String()
}

func TestBadURLs(t *testing.T) {
	cases := []struct{ name, url string }{
		{"no container", "https://acct.blob.core.windows.net/"},
		{"path-style, no container", "http://127.0.0.1:10000/devstoreaccount1"},
		{"not a URL", "acct/container"},
		{"http to a remote host", "http://acct.blob.core.windows.net/c"},
		{"dot-dot prefix", "https://acct.blob.core.windows.net/c/../x"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := blobstore.NewWithSharedKey(tc.url, "acct", "a2V5", nil)
			if !errors.Is(err, tablekit.ErrInvalid) {
				t.Errorf("got %v, want tablekit.ErrInvalid", err)
			}
		})
	}
}

func TestSASNeverInErrors(t *testing.T) {
	const sig = "c2VjcmV0c2lnbmF0dXJl"
	// Nothing listens on port 1: the connection is refused, and net/http's
	// error names the URL.
	var o blobstore.Options
	o.Client.Retry.MaxRetries = -1 // one attempt: the refusal is certain
	st, err := blobstore.NewWithSAS("http://127.0.0.1:1/devstoreaccount1/c?sv=2024-01-01&sp=rl&sig="+sig, &o)
	if err != nil {
		t.Fatal(err)
	}
	ctx := testenv.Ctx(t)
	_, err = st.List(ctx, "")
	if err == nil {
		t.Fatal("List on a closed port succeeded")
	}
	if got := err.Error(); strings.Contains(got, sig) {
		t.Errorf("error holds the SAS signature: %s", got)
	}
	if _, err := blobstore.NewWithSAS("https://acct.blob.core.windows.net/c", nil); !errors.Is(err, tablekit.ErrInvalid) {
		t.Errorf("NewWithSAS without sig: got %v, want tablekit.ErrInvalid", err)
	}
}

// TestStoreThroughFaults holds the blob store to the Store contract with
// a fifth of its requests answered 503 and some connections reset before
// they reach the service: azblob's retries, which the store keeps, get
// every file through whole.
func TestStoreThroughFaults(t *testing.T) {
	b := testenv.AzuriteBlob(t)
	px, err := faults.Start(b.Endpoint[:strings.LastIndex(b.Endpoint, "/")])
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = px.Close() })
	px.SetSeed(11)
	px.SetRules(
		faults.Rule{Probability: 0.20, Fault: faults.Status(http.StatusServiceUnavailable, "ServerBusy", nil)},
		faults.Rule{Probability: 0.05, Fault: faults.ResetBeforeForward()},
	)
	var o blobstore.Options
	o.Client.Retry = policy.RetryOptions{MaxRetries: 10, RetryDelay: 5 * time.Millisecond, MaxRetryDelay: 50 * time.Millisecond}
	st, err := blobstore.NewWithSharedKey(px.Endpoint(b.Account)+"/"+testenv.ContainerName(t), b.Account, b.Key, &o)
	if err != nil {
		t.Fatal(err)
	}
	testenv.CheckStore(t, st)
	if px.Injected() == 0 {
		t.Fatal("no fault was injected: the test proved nothing")
	}
}
