package testenv

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tablekit/tablekit/devtools/azurite"
)

// BlobEnv is a reachable Azurite blob service, for what tablekit keeps in
// a container (backups).
type BlobEnv struct {
	// Endpoint is the service URL, e.g. http://127.0.0.1:10000/devstoreaccount1;
	// a container's URL is Endpoint + "/" + its name.
	Endpoint string
	// ConnectionString is the development-account connection string.
	ConnectionString string
	// Account and Key are Azurite's public development account.
	Account, Key string
}

var (
	blobOnce    sync.Once
	blobEnv     *BlobEnv
	blobErr     error
	blobStarted *azurite.Server
)

// AzuriteBlob returns the emulator's blob service, started once per test
// binary on a free 127.0.0.1 port (or the one TABLEKIT_AZURITE_BLOB_ENDPOINT
// names) and stopped by Run. It fails or skips as Azurite does.
func AzuriteBlob(tb testing.TB) *BlobEnv {
	tb.Helper()
	blobOnce.Do(func() { blobEnv, blobErr = setupBlob() })
	if blobErr != nil {
		if Required() {
			tb.Fatalf("Azurite's blob service is required (TABLEKIT_REQUIRE_AZURITE=1) but unavailable: %v", blobErr)
		}
		tb.Skipf("%s (TABLEKIT_REQUIRE_AZURITE=1 fails instead)", unavailable(blobErr))
	}
	return blobEnv
}

func setupBlob() (*BlobEnv, error) {
	if ep := os.Getenv("TABLEKIT_AZURITE_BLOB_ENDPOINT"); ep != "" {
		ep = strings.TrimSuffix(ep, "/")
		return &BlobEnv{Endpoint: ep, ConnectionString: azurite.BlobConnectionString(ep), Account: azurite.Account, Key: azurite.Key}, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	s, err := azurite.StartBlob(ctx)
	if err != nil {
		return nil, err
	}
	blobStarted = s
	return &BlobEnv{Endpoint: s.Endpoint(), ConnectionString: s.ConnectionString(), Account: azurite.Account, Key: azurite.Key}, nil
}

// ContainerName makes a valid, unique container name from the test's name:
// lower-case letters and digits, 3 to 63 characters.
func ContainerName(tb testing.TB) string {
	return strings.ToLower(TableName(tb))
}
