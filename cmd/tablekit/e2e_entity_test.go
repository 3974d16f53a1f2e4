package main

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/devtools/azurite"
	"github.com/tablekit/tablekit/devtools/faults"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/table"
)

// tkIn runs the binary with stdin.
func tkIn(t *testing.T, conn, stdin string, args ...string) result {
	t.Helper()
	return runBinary(t, childEnv(conn), strings.NewReader(stdin), args...)
}

// getLine runs get and decodes its line.
func getLine(t *testing.T, cs, name, pk, rk string) map[string]any {
	t.Helper()
	r := tk(t, cs, "get", name, pk, rk)
	wantCode(t, r, exitOK, "get "+pk+" "+rk)
	var m map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &m); err != nil || strings.Count(r.stdout, "\n") != 1 {
		t.Fatalf("get printed %q, want one JSON line (%v)", r.stdout, err)
	}
	return m
}

func writeFile(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "in.jsonl")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestE2EEntityCommands(t *testing.T) {
	az := testenv.Azurite(t)
	cs := az.ConnectionString
	name := seed(t, az, []string{"a", "b"}, 3)

	m := getLine(t, cs, name, "a", "0001")
	for k, want := range map[string]any{"PartitionKey": "a", "RowKey": "0001", "N": float64(1), "Timestamp@odata.type": "Edm.DateTime"} {
		if m[k] != want {
			t.Errorf("get: %s = %v, want %v", k, m[k], want)
		}
	}
	etag, _ := m["odata.etag"].(string)
	if etag == "" {
		t.Fatalf("get printed no odata.etag: %v", m)
	}

	// put replaces by default, merges with --merge, and reads stdin.
	line := `{"PartitionKey":"a","RowKey":"0001","Big@odata.type":"Edm.Int64","Big":"5","D@odata.type":"Edm.Double","D":2.0}` + "\n"
	r := tkIn(t, cs, line, "put", name)
	wantCode(t, r, exitOK, "put from stdin")
	if !strings.Contains(r.stdout, `"odata.etag":`) {
		t.Errorf("put printed %q, want the new ETag", r.stdout)
	}
	m = getLine(t, cs, name, "a", "0001")
	if _, ok := m["N"]; ok || m["Big@odata.type"] != "Edm.Int64" || m["D@odata.type"] != "Edm.Double" {
		t.Errorf("after put (replace): %v, want Big (Int64) and D (Double) only", m)
	}
	wantCode(t, tk(t, cs, "put", name, writeFile(t, `{"PartitionKey":"a","RowKey":"0001","S":"x"}`), "--merge"), exitOK, "put --merge")
	if m = getLine(t, cs, name, "a", "0001"); m["S"] != "x" || m["Big"] != "5" {
		t.Errorf("after put --merge: %v, want S added and Big kept", m)
	}

	// --if-match: a stale ETag is refused (4) and changes nothing; the
	// current one writes.
	cur := m["odata.etag"].(string)
	one := writeFile(t, `{"PartitionKey":"a","RowKey":"0001","S":"y"}`)
	wantCode(t, tk(t, cs, "put", name, one, "--if-match", etag), exitPrecondition, "put --if-match stale")
	if m = getLine(t, cs, name, "a", "0001"); m["S"] != "x" {
		t.Errorf("a refused put changed the entity: %v", m)
	}
	wantCode(t, tk(t, cs, "put", name, one, "--if-match", cur, "--merge"), exitOK, "put --if-match current")
	if m = getLine(t, cs, name, "a", "0001"); m["S"] != "y" || m["Big"] != "5" {
		t.Errorf("after put --if-match --merge: %v", m)
	}
	wantCode(t, tk(t, cs, "put", name, writeFile(t, `{"PartitionKey":"a","RowKey":"new","S":"z"}`), "--if-match", "*"), exitNotFound, "put --if-match * on a missing entity")

	// rm: a stale ETag is refused, then a delete, then not found.
	stale := getLine(t, cs, name, "a", "0002")["odata.etag"].(string)
	wantCode(t, tk(t, cs, "put", name, writeFile(t, `{"PartitionKey":"a","RowKey":"0002","S":"v"}`), "--merge"), exitOK, "put a/0002")
	wantCode(t, tk(t, cs, "rm", name, "a", "0002", "--if-match", stale), exitPrecondition, "rm --if-match stale")
	wantCode(t, tk(t, cs, "rm", name, "a", "0002"), exitOK, "rm")
	wantCode(t, tk(t, cs, "rm", name, "a", "0002"), exitNotFound, "rm again")
	wantCode(t, tk(t, cs, "get", name, "a", "0002"), exitNotFound, "get deleted")
	wantCode(t, tk(t, cs, "get", testenv.TableName(t), "a", "0001"), exitNotFound, "get from a missing table")

	// Usage errors: nothing written.
	tests := []struct {
		what  string
		stdin string
		args  []string
	}{
		{"bad key", "", []string{"get", name, "a/b", "1"}},
		{"too few arguments", "", []string{"get", name, "a"}},
		{"second line bad", `{"PartitionKey":"b","RowKey":"0000","S":"w"}` + "\n" + `{"PartitionKey":"b","RowKey":"x/y"}`, []string{"put", name}},
		{"not JSON", "PartitionKey,RowKey\n", []string{"put", name}},
		{"empty input", "", []string{"put", name}},
		{"if-match of two", `{"PartitionKey":"b","RowKey":"0000"}` + "\n" + `{"PartitionKey":"b","RowKey":"0001"}`, []string{"put", name, "--if-match", "*"}},
		{"rm bad key", "", []string{"rm", name, "a", "1#"}},
		{"query bad format", "", []string{"query", name, "--format", "xml"}},
		{"query negative top", "", []string{"query", name, "--top", "-1"}},
		{"query bad filter", "", []string{"query", name, "--filter", "N eq 'x"}},
	}
	for _, tt := range tests {
		r := tkIn(t, cs, tt.stdin, tt.args...)
		wantCode(t, r, exitUsage, tt.what)
	}
	if m = getLine(t, cs, name, "b", "0000"); m["S"] != nil {
		t.Errorf("a refused put wrote its first line: %v", m)
	}

	// query: jsonl, table, csv, --select, --top.
	r = tk(t, cs, "query", name, "--filter", "PartitionKey eq 'b'")
	wantCode(t, r, exitOK, "query")
	if got := strings.Count(r.stdout, "\n"); got != 3 || !strings.Contains(r.stdout, `"odata.etag"`) {
		t.Errorf("query printed %d lines, want 3 with ETags:\n%s", got, r.stdout)
	}
	r = tk(t, cs, "query", name, "--filter", "PartitionKey eq 'b'", "--format", "table", "--top", "2")
	wantCode(t, r, exitOK, "query --format table")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "PartitionKey") {
		t.Fatalf("query --format table printed %q, want a header and 2 rows", r.stdout)
	}
	if want := strings.Index(lines[0], "N"); strings.LastIndex(lines[1], "0") != want || strings.LastIndex(lines[2], "1") != want {
		t.Errorf("columns not aligned:\n%s", r.stdout)
	}
	r = tk(t, cs, "query", name, "--select", "S", "--format", "csv", "--top", "10")
	wantCode(t, r, exitOK, "query --format csv")
	if !strings.HasPrefix(r.stdout, "PartitionKey,RowKey,Timestamp,S,S@type\n") || strings.Count(r.stdout, "\n") != 6 {
		t.Errorf("query --format csv --select S printed:\n%s", r.stdout)
	}
}

// TestE2EEntityLostReply: a conditional write whose reply is lost,
// retried and then refused for the ETag its own first attempt changed,
// says the outcome is unknown (exit 5), not "precondition failed". A
// delete whose retry finds the entity gone has done what it was asked.
func TestE2EEntityLostReply(t *testing.T) {
	az := testenv.Azurite(t)
	cs := az.ConnectionString
	name := seed(t, az, []string{"a"}, 2)
	px, err := faults.Start(strings.TrimSuffix(az.Endpoint, "/"+az.Account))
	if err != nil {
		t.Fatal(err)
	}
	defer px.Close()
	pcs := azurite.ConnectionString(px.Endpoint(az.Account))
	svc, err := table.NewService(cs, nil)
	if err != nil {
		t.Fatal(err)
	}
	tbl, _ := table.New[table.Entity](svc, name)
	ctx := context.Background()

	etag := getLine(t, cs, name, "a", "0000")["odata.etag"].(string)
	px.SetRules(faults.Rule{Match: faults.And(faults.Method(http.MethodPut, http.MethodPatch, "MERGE"), faults.PathContains(name)), Times: 1, Fault: faults.DropAfterForward()})
	r := tkIn(t, pcs, `{"PartitionKey":"a","RowKey":"0000","S":"lost"}`, "put", name, "--if-match", etag)
	wantCode(t, r, exitUnknown, "put --if-match with a lost reply")
	if !strings.Contains(r.stderr, "may") {
		t.Errorf("stderr does not say the write may have been applied: %s", r.stderr)
	}
	if e, err := tbl.Get(ctx, "a", "0000", nil); err != nil || e.Properties["S"] != "lost" {
		t.Errorf("the put whose reply was lost: %v, %v; want it stored", e.Properties, err)
	}

	etag = getLine(t, cs, name, "a", "0001")["odata.etag"].(string)
	px.SetRules(faults.Rule{Match: faults.And(faults.Method(http.MethodDelete), faults.PathContains(name)), Times: 1, Fault: faults.DropAfterForward()})
	wantCode(t, tk(t, pcs, "rm", name, "a", "0001", "--if-match", etag), exitOK, "rm --if-match with a lost reply")
	if _, err := tbl.Get(ctx, "a", "0001", nil); !errors.Is(err, tablekit.ErrNotFound) {
		t.Errorf("after rm: %v, want not found", err)
	}
	if got := px.Injected(); got != 2 {
		t.Errorf("%d replies lost, want 2", got)
	}
}
