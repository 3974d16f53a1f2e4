package testenv

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// NodeSDK runs devtools/nodesdk/entities.mjs, Microsoft's Node SDK
// (@azure/data-tables, pinned in package.json) as another client of the
// table name on this emulator: "put" creates the entities of input (JSON
// lines in the SDK's form), "list" returns the table's entities so. Without
// node or the SDK installed it fails the test when the emulator is required
// (TABLEKIT_REQUIRE_AZURITE=1) and skips it otherwise.
func (e *Env) NodeSDK(tb testing.TB, mode, name string, input []byte) []byte {
	tb.Helper()
	script, err := nodeScript()
	if err == nil {
		_, err = exec.LookPath("node")
	}
	if err != nil {
		if Required() {
			tb.Fatalf("the Node SDK cross-check needs node and `npm ci`: %v", err)
		}
		tb.Skipf("the Node SDK cross-check needs node and `npm ci`: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", script, mode, e.ConnectionString, name)
	cmd.Stdin = bytes.NewReader(input)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("node entities.mjs %s: %v\n%s", mode, err, stderr.Bytes())
	}
	return out
}

// nodeScript finds the script beside an installed Node SDK, in the working
// directory or one of its parents (the repository root, from a package).
func nodeScript() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		sdk := filepath.Join(dir, "node_modules", "@azure", "data-tables", "package.json")
		script := filepath.Join(dir, "devtools", "nodesdk", "entities.mjs")
		if _, err := os.Stat(sdk); err == nil {
			_, err := os.Stat(script)
			return script, err
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("node_modules/@azure/data-tables not found above the working directory")
		}
		dir = parent
	}
}
