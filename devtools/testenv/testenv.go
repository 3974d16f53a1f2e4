// Package testenv gives tests a real Table endpoint: the Azurite emulator on
// 127.0.0.1, either the one `make test` started (TABLEKIT_AZURITE_ENDPOINT)
// or one started in memory for this test binary. Tables get unique names and
// are deleted when the test ends.
//
// When TABLEKIT_REQUIRE_AZURITE=1 (set by `make test` and CI) a missing
// emulator fails the test; otherwise the test is skipped with the reason.
//
// Packages with integration tests call Run from TestMain so that an emulator
// started for the binary is stopped when it exits:
//
//	func TestMain(m *testing.M) { os.Exit(testenv.Run(m)) }
package testenv

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode"

	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit/devtools/azurite"
)

// Env is a reachable Azurite table service.
type Env struct {
	// Endpoint is the service URL, e.g. http://127.0.0.1:10002/devstoreaccount1.
	Endpoint string
	// ConnectionString is the development-account connection string.
	ConnectionString string
	// Account and Key are Azurite's public development account.
	Account, Key string
}

var (
	once    sync.Once
	env     *Env
	envErr  error
	started *azurite.Server
	counter atomic.Int64
)

// Run runs the tests and stops an emulator that this binary started. It
// also sets TABLEKIT_CONNECTION_STRING when it is unset, so that runnable
// Example functions, which read it as users' programs do, find the emulator.
//
// Without an emulator (and without TABLEKIT_REQUIRE_AZURITE=1) the Examples,
// which cannot skip themselves, are left out of the run unless -run names
// them, and one line says how to install the emulator.
func Run(m *testing.M) int {
	if os.Getenv("TABLEKIT_CONNECTION_STRING") == "" {
		once.Do(func() { env, envErr = setup() })
		if envErr == nil {
			os.Setenv("TABLEKIT_CONNECTION_STRING", env.ConnectionString)
		} else if !Required() {
			flag.Parse()
			if run := flag.Lookup("test.run"); run != nil && run.Value.String() == "" {
				_ = flag.Set("test.run", "^(Test|Fuzz)")
			}
			fmt.Fprintf(os.Stderr, "testenv: %s; integration tests and Examples skipped\n", unavailable(envErr))
		}
	}
	code := m.Run()
	if started != nil {
		started.Stop()
	}
	if blobTLSStarted != nil {
		blobTLSStarted.Stop()
		os.RemoveAll(blobTLSDir)
	}
	if blobStarted != nil {
		blobStarted.Stop()
	}
	return code
}

// Required reports whether a missing emulator must fail the run.
func Required() bool { return os.Getenv("TABLEKIT_REQUIRE_AZURITE") == "1" }

func setup() (*Env, error) {
	if ep := os.Getenv("TABLEKIT_AZURITE_ENDPOINT"); ep != "" {
		ep = strings.TrimSuffix(ep, "/")
		return &Env{Endpoint: ep, ConnectionString: azurite.ConnectionString(ep), Account: azurite.Account, Key: azurite.Key}, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	s, err := azurite.Start(ctx)
	if err != nil {
		return nil, err
	}
	started = s
	return &Env{Endpoint: s.Endpoint(), ConnectionString: s.ConnectionString(), Account: azurite.Account, Key: azurite.Key}, nil
}

// Azurite returns the emulator, starting it once per test binary. It fails
// the test when the emulator is required and missing, and skips it otherwise.
func Azurite(tb testing.TB) *Env {
	tb.Helper()
	once.Do(func() { env, envErr = setup() })
	if envErr != nil {
		if Required() {
			tb.Fatalf("Azurite is required (TABLEKIT_REQUIRE_AZURITE=1) but unavailable: %v", envErr)
		}
		tb.Skipf("%s (TABLEKIT_REQUIRE_AZURITE=1 fails instead)", unavailable(envErr))
	}
	return env
}

// unavailable says why there is no emulator and how to get one.
func unavailable(err error) string {
	if errors.Is(err, azurite.ErrNotInstalled) {
		return "Azurite is not installed: run `npm ci` at the repository root (needs Node.js and npm)"
	}
	return fmt.Sprintf("Azurite unavailable: %v", err)
}

// Credential is the shared key of the development account.
func (e *Env) Credential(tb testing.TB) *aztables.SharedKeyCredential {
	tb.Helper()
	cred, err := aztables.NewSharedKeyCredential(e.Account, e.Key)
	if err != nil {
		tb.Fatalf("shared key: %v", err)
	}
	return cred
}

// TableURL is the URL of the named table on this endpoint.
func (e *Env) TableURL(name string) string { return e.Endpoint + "/" + name }

// Client returns a shared-key client for the named table (not created).
func (e *Env) Client(tb testing.TB, name string, opts *aztables.ClientOptions) *aztables.Client {
	tb.Helper()
	c, err := aztables.NewClientWithSharedKey(e.TableURL(name), e.Credential(tb), opts)
	if err != nil {
		tb.Fatalf("client: %v", err)
	}
	return c
}

// NewTable creates a uniquely named table and deletes it when the test ends.
// opts may be nil (aztables defaults) or tablekit's tuned options.
func (e *Env) NewTable(tb testing.TB, opts *aztables.ClientOptions) (string, *aztables.Client) {
	tb.Helper()
	name := TableName(tb)
	c := e.Client(tb, name, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := c.CreateTable(ctx, nil); err != nil {
		tb.Fatalf("create table %s: %v", name, err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, _ = c.Delete(ctx, nil)
	})
	return name, c
}

// TableName makes a valid, unique table name from the test's name: letters
// and digits only, starting with a letter, at most 63 characters.
func TableName(tb testing.TB) string {
	var b strings.Builder
	b.WriteString("t")
	for _, r := range tb.Name() {
		if r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			b.WriteRune(r)
		}
		if b.Len() >= 40 {
			break
		}
	}
	var rnd [4]byte
	_, _ = rand.Read(rnd[:])
	fmt.Fprintf(&b, "%d%s", counter.Add(1), hex.EncodeToString(rnd[:]))
	return b.String()
}
