package main

import (
	"bufio"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tablekit/tablekit/devtools/azurite"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/table"
)

// TestServe runs the command as `make azurite` does, without a command to
// run: the connection string it prints reaches the emulator it started,
// and Ctrl-C (SIGINT) ends it with status 0 and the emulator with it.
func TestServe(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command and starts an emulator: about 6 s; runs without -short")
	}
	if _, err := azurite.FindBinary(); err != nil {
		if testenv.Required() {
			t.Fatalf("Azurite is required (TABLEKIT_REQUIRE_AZURITE=1): %v", err)
		}
		t.Skipf("%v (TABLEKIT_REQUIRE_AZURITE=1 fails instead)", err)
	}
	ctx := testenv.Ctx(t)
	bin := filepath.Join(t.TempDir(), "withazurite")
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "-port", "0")
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() { // a failed check still stops the command, and so the emulator
		_ = cmd.Process.Signal(syscall.SIGINT)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
		}
	})

	vars := map[string]string{}
	sc := bufio.NewScanner(stdout)
	for len(vars) < 2 && sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		line, _, _ = strings.Cut(line, "  #")
		if name, value, ok := strings.Cut(strings.TrimPrefix(line, "export "), "="); ok && line != name {
			vars[name] = strings.Trim(value, "'")
		}
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	cs, endpoint := vars["TABLEKIT_CONNECTION_STRING"], vars["TABLEKIT_AZURITE_ENDPOINT"]
	if cs == "" || !strings.HasPrefix(endpoint, "http://127.0.0.1:") {
		t.Fatalf("printed variables: got %q, want TABLEKIT_CONNECTION_STRING and a loopback TABLEKIT_AZURITE_ENDPOINT", vars)
	}

	svc, err := table.NewService(cs, nil)
	if err != nil {
		t.Fatalf("the printed connection string: %v", err)
	}
	name := testenv.TableName(t)
	if err := svc.CreateTable(ctx, name); err != nil {
		t.Fatalf("create a table through the printed connection string: %v", err)
	}
	var names []string
	for n, err := range svc.Tables(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, n)
	}
	if !slices.Contains(names, name) {
		t.Errorf("tables: got %v, want %s among them", names, name)
	}

	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		exited <- err // for the cleanup
		if err != nil {
			t.Errorf("after SIGINT: %v, want exit status 0", err)
		}
	case <-ctx.Done():
		t.Fatalf("still running after SIGINT: %v", ctx.Err())
	}
	resp, err := http.Get(endpoint + "/Tables")
	if err == nil {
		resp.Body.Close()
		t.Errorf("the emulator still answers at %s after the command ended", endpoint)
	} else if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("after the command ended: %v, want the connection refused", err)
	}
}
