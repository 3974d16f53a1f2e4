// Package azurite starts and stops the Azurite emulator installed by
// `npm ci` in the repository's node_modules: its table service, and its blob
// service for backups kept in a container. Tests, examples and benchmarks use
// it so that every run talks to real endpoints on 127.0.0.1.
package azurite

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// The development account that Azurite documents and accepts by default. It
// is public knowledge, not a secret.
const (
	Account = "devstoreaccount1"
	Key     = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
)

// ErrNotInstalled reports that node_modules/.bin/azurite-table (or
// azurite-blob) was not found above the working directory: run `npm ci` at
// the repository root.
var ErrNotInstalled = errors.New("azurite: emulator not installed (run `npm ci` at the repository root)")

// Server is a running Azurite table or blob service.
type Server struct {
	Port    int
	service string      // "table" or "blob"
	tls     *tls.Config // the client's, when the server serves https
	cmd     *exec.Cmd
	done    chan struct{}
}

// Endpoint is the service URL, path-style, without a trailing slash.
func (s *Server) Endpoint() string {
	scheme := "http"
	if s.tls != nil {
		scheme = "https"
	}
	return fmt.Sprintf("%s://127.0.0.1:%d/%s", scheme, s.Port, Account)
}

// ConnectionString is a connection string for the development account on
// this server, naming its table or blob endpoint.
func (s *Server) ConnectionString() string {
	if s.service == "blob" {
		return BlobConnectionString(s.Endpoint())
	}
	return ConnectionString(s.Endpoint())
}

// ConnectionString builds the development-account connection string for a
// table endpoint such as http://127.0.0.1:10002/devstoreaccount1.
func ConnectionString(endpoint string) string {
	return "DefaultEndpointsProtocol=http;AccountName=" + Account + ";AccountKey=" + Key + ";TableEndpoint=" + endpoint + ";"
}

// BlobConnectionString builds the development-account connection string for
// a blob endpoint such as http://127.0.0.1:10000/devstoreaccount1.
func BlobConnectionString(endpoint string) string {
	return "DefaultEndpointsProtocol=http;AccountName=" + Account + ";AccountKey=" + Key + ";BlobEndpoint=" + endpoint + ";"
}

// FindBinary looks for node_modules/.bin/azurite-table in the working
// directory and its parents, so that tests run from any package directory.
func FindBinary() (string, error) { return findBinary("azurite-table") }

func findBinary(name string) (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		p := filepath.Join(dir, "node_modules", ".bin", name)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", ErrNotInstalled
		}
		dir = parent
	}
}

// Start launches Azurite in memory on a free loopback port and waits until it
// answers. The process is placed in its own process group so that Stop ends
// node and anything it spawned.
func Start(ctx context.Context) (*Server, error) { return StartOn(ctx, 0) }

// StartOn is Start on the given loopback port, or on a free one when port
// is 0: `make azurite` serves on Azurite's usual 10002, where tools such as
// Storage Explorer look for it.
func StartOn(ctx context.Context, port int) (*Server, error) {
	return startService(ctx, "table", port, nil)
}

// StartBlob launches Azurite's blob service (azurite-blob, from the same
// pinned package) as Start launches the table service.
func StartBlob(ctx context.Context) (*Server, error) { return startService(ctx, "blob", 0, nil) }

// StartBlobTLS launches the blob service over https with the certificate
// and key in the PEM files certFile and keyFile, and OAuth in Azurite's
// basic mode: a bearer token is accepted when its audience, issuer and
// times are right, its signature unchecked, so a fixed token stands in for
// Entra ID (Azurite takes OAuth over https only). roots must trust the
// certificate; the readiness check uses them.
func StartBlobTLS(ctx context.Context, certFile, keyFile string, roots *x509.CertPool) (*Server, error) {
	return startService(ctx, "blob", 0, &tls.Config{RootCAs: roots}, "--cert", certFile, "--key", keyFile, "--oauth", "basic")
}

// startService starts the azurite-<service> binary on port, or on a free
// one when port is 0, trying another if one was taken between choosing and
// binding it; tc and extra are StartBlobTLS's.
func startService(ctx context.Context, service string, port int, tc *tls.Config, extra ...string) (*Server, error) {
	bin, err := findBinary("azurite-" + service)
	if err != nil {
		return nil, err
	}
	if port != 0 {
		// Another server on the port would answer the readiness check
		// in place of this one.
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if err != nil {
			return nil, fmt.Errorf("azurite: port %d is not free: %w", port, err)
		}
		l.Close()
		return start(ctx, bin, service, port, tc, extra)
	}
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		s, err := start(ctx, bin, service, port, tc, extra)
		if err == nil {
			return s, nil
		}
		lastErr = err
	}
	return nil, lastErr
}

func start(ctx context.Context, bin, service string, port int, tc *tls.Config, extra []string) (*Server, error) {
	cmd := exec.Command(bin, append([]string{
		"--" + service + "Host", "127.0.0.1",
		"--" + service + "Port", strconv.Itoa(port),
		"--inMemoryPersistence",
		"--skipApiVersionCheck",
		"--disableTelemetry",
		"--silent",
	}, extra...)...)
	cmd.Dir = os.TempDir()
	cmd.Stdout = os.Stderr
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("azurite: start: %w", err)
	}
	s := &Server{Port: port, service: service, tls: tc, cmd: cmd, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(s.done) }()

	deadline := time.Now().Add(60 * time.Second)
	url := s.Endpoint() + "/Tables"
	if service == "blob" {
		url = s.Endpoint() + "?comp=list"
	}
	client := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{TLSClientConfig: tc}}
	for {
		select {
		case <-s.done:
			return nil, fmt.Errorf("azurite: exited during start-up on port %d", port)
		case <-ctx.Done():
			s.Stop()
			return nil, ctx.Err()
		default:
		}
		// Any HTTP answer (403 without a signature) means the server is up.
		if resp, err := client.Get(url); err == nil {
			resp.Body.Close()
			return s, nil
		}
		if time.Now().After(deadline) {
			s.Stop()
			return nil, fmt.Errorf("azurite: no answer on port %d after 60s", port)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Stop ends the emulator's process group and waits for it to exit.
func (s *Server) Stop() {
	if s == nil || s.cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(5 * time.Second):
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		<-s.done
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
