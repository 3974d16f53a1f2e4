package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/batch"
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

// markerLine is the marker query's line on stderr gives, "" when it
// printed none.
func markerLine(t *testing.T, r result) string {
	t.Helper()
	const say = "go on with --marker "
	i := strings.LastIndex(r.stderr, say)
	if i < 0 {
		return ""
	}
	m, _, _ := strings.Cut(r.stderr[i+len(say):], "\n")
	if m == "" || strings.Contains(m, " ") {
		t.Fatalf("the marker line ends with no marker alone:\n%s", r.stderr)
	}
	return m
}

// jsonLines decodes what get and query print.
func jsonLines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var ms []map[string]any
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("not a JSON line: %q (%v)", l, err)
		}
		ms = append(ms, m)
	}
	return ms
}

// TestE2EPutProperties: NAME=VALUE arguments form one entity; a value is a
// string unless NAME@odata.type types it, and each EDM type comes back as
// written.
func TestE2EPutProperties(t *testing.T) {
	az := testenv.Azurite(t)
	cs := az.ConnectionString
	name := seedTable(t, az, nil)

	r := tk(t, cs, "put", name, "PartitionKey=p", "RowKey=r",
		"S=42", "Empty=", "Eq=a=b",
		"I32=-7", "I32@odata.type=Edm.Int32",
		"I64=9007199254740993", "I64@odata.type=Edm.Int64",
		"D=2", "D@odata.type=Edm.Double",
		"B=true", "B@odata.type=Edm.Boolean",
		"T=2024-05-01T10:00:00.5Z", "T@odata.type=Edm.DateTime",
		"G=c9da6455-213d-42c9-9a79-3e9149a57833", "G@odata.type=Edm.Guid",
		"Bin=AAEC", "Bin@odata.type=Edm.Binary",
		"Str=1", "Str@odata.type=Edm.String")
	wantCode(t, r, exitOK, "put NAME=VALUE")
	m := getLine(t, cs, name, "p", "r")
	tests := []struct {
		prop string
		want any
		typ  any // the annotation get prints; nil: none (a JSON string, number or bool)
	}{
		{"S", "42", nil}, // a bare value is a string, whatever it looks like
		{"Empty", "", nil},
		{"Eq", "a=b", nil}, // the first = splits
		{"I32", float64(-7), nil},
		{"I64", "9007199254740993", "Edm.Int64"},
		{"D", float64(2), "Edm.Double"},
		{"B", true, nil},
		{"T", "2024-05-01T10:00:00.5000000Z", "Edm.DateTime"},
		{"G", "c9da6455-213d-42c9-9a79-3e9149a57833", "Edm.Guid"},
		{"Bin", "AAEC", "Edm.Binary"},
		{"Str", "1", nil},
	}
	for _, tt := range tests {
		if got := m[tt.prop]; got != tt.want {
			t.Errorf("%s = %#v, want %#v", tt.prop, got, tt.want)
		}
		if got := m[tt.prop+"@odata.type"]; got != tt.typ {
			t.Errorf("%s@odata.type = %v, want %v", tt.prop, got, tt.typ)
		}
	}

	// With --merge and --if-match, as from a file.
	wantCode(t, tk(t, cs, "put", name, "PartitionKey=p", "RowKey=r", "S=43", "--merge"), exitOK, "put NAME=VALUE --merge")
	if m = getLine(t, cs, name, "p", "r"); m["S"] != "43" || m["I64"] != "9007199254740993" {
		t.Errorf("after --merge: %v, want S changed and I64 kept", m)
	}
	wantCode(t, tk(t, cs, "put", name, "PartitionKey=p", "RowKey=r", "S=44", "--if-match", `W/"datetime'2020-01-01T00%3A00%3A00.0000000Z'"`), exitPrecondition, "put NAME=VALUE --if-match stale")
	wantCode(t, tk(t, cs, "put", name, "PartitionKey=p", "RowKey=r", "S=44", "--if-match", m["odata.etag"].(string)), exitOK, "put NAME=VALUE --if-match current")
	if m = getLine(t, cs, name, "p", "r"); m["S"] != "44" || m["I64"] != nil {
		t.Errorf("after --if-match (replace): %v, want S only", m)
	}
}

// TestE2EPutRefused: a bad NAME=VALUE argument or flag combination is
// exit status 2 with a message naming what is wrong, and no request is
// sent (the fault proxy in front counts none).
func TestE2EPutRefused(t *testing.T) {
	az := testenv.Azurite(t)
	name := seedTable(t, az, nil)
	px, err := faults.Start(strings.TrimSuffix(az.Endpoint, "/"+az.Account))
	if err != nil {
		t.Fatal(err)
	}
	defer px.Close()
	pcs := azurite.ConnectionString(px.Endpoint(az.Account))

	keys := []string{"put", name, "PartitionKey=p", "RowKey=r"}
	tests := []struct {
		what string
		args []string
		want string // in the message
	}{
		{"bad Int32", append(keys, "N=x", "N@odata.type=Edm.Int32"), `"x" is not an Int32`},
		{"Int32 out of range", append(keys, "N=2147483648", "N@odata.type=Edm.Int32"), "not an Int32"},
		{"bad Int64", append(keys, "N=1.5", "N@odata.type=Edm.Int64"), "not an Int64"},
		{"bad Double", append(keys, "N=one", "N@odata.type=Edm.Double"), "not a Double"},
		{"bad Boolean", append(keys, "N=yes", "N@odata.type=Edm.Boolean"), "not a Boolean"},
		{"bad DateTime", append(keys, "N=2024-13-01", "N@odata.type=Edm.DateTime"), "not a DateTime"},
		{"bad Guid", append(keys, "N=123", "N@odata.type=Edm.Guid"), "not a Guid"},
		{"bad Binary", append(keys, "N=@@", "N@odata.type=Edm.Binary"), "not Binary"},
		{"unknown type", append(keys, "N=1", "N@odata.type=Edm.Decimal"), "unknown type"},
		{"type without value", append(keys, "N@odata.type=Edm.Int32"), "types no property"},
		{"typed twice", append(keys, "N=1", "N@odata.type=Edm.Int32", "N@odata.type=Edm.Int64"), "given twice"},
		{"property twice", append(keys, "N=1", "N=2"), "given twice"},
		{"no RowKey", []string{"put", name, "PartitionKey=p", "N=1"}, "no RowKey"},
		{"typed key", append(keys, "RowKey@odata.type=Edm.Int32"), "keys are strings"},
		{"bad key", []string{"put", name, "PartitionKey=p", "RowKey=a/b"}, "RowKey"},
		{"Timestamp", append(keys, "Timestamp=2024-01-01T00:00:00Z"), "the service sets it"},
		{"bad name", append(keys, "1N=1"), "property name"},
		{"not NAME=VALUE", append(keys, "N"), "want NAME=VALUE"},
		{"two files", []string{"put", name, "a.jsonl", "b.jsonl"}, "want one FILE"},
		{"if-not-exists with if-match", append(keys, "--if-not-exists", "--if-match", "*"), "give one of them"},
		{"if-not-exists with merge", append(keys, "--if-not-exists", "--merge"), "--merge"},
	}
	for _, tt := range tests {
		r := tk(t, pcs, tt.args...)
		wantCode(t, r, exitUsage, tt.what)
		if !strings.Contains(r.stderr, tt.want) {
			t.Errorf("%s: stderr %q, want it to say %q", tt.what, r.stderr, tt.want)
		}
	}
	if got := px.Count(name); got != 0 {
		t.Errorf("the refused commands sent %d requests for the table, want 0: %v", got, px.Counts())
	}
	if r := tk(t, az.ConnectionString, "query", name); r.code != exitOK || r.stdout != "" {
		t.Errorf("after the refusals the table holds:\n%s(exit %d), want nothing", r.stdout, r.code)
	}
	// The proxy counts a put that is sent.
	wantCode(t, tk(t, pcs, append(keys, "N=1")...), exitOK, "put through the proxy")
	if got := px.Count(name); got != 1 {
		t.Errorf("a put through the proxy: %d requests counted, want 1", got)
	}
}

// TestE2EPutIfNotExists: --if-not-exists inserts, and leaves an entity
// with the same keys as it is, with exit status 4.
func TestE2EPutIfNotExists(t *testing.T) {
	az := testenv.Azurite(t)
	cs := az.ConnectionString
	name := seed(t, az, []string{"a"}, 2)

	wantCode(t, tk(t, cs, "put", name, "PartitionKey=a", "RowKey=new", "S=x", "--if-not-exists"), exitOK, "put --if-not-exists of a new entity")
	if m := getLine(t, cs, name, "a", "new"); m["S"] != "x" {
		t.Errorf("the inserted entity: %v, want S=x", m)
	}
	r := tk(t, cs, "put", name, "PartitionKey=a", "RowKey=0001", "S=y", "--if-not-exists")
	wantCode(t, r, exitPrecondition, "put --if-not-exists of an existing entity")
	if !strings.Contains(r.stderr, "exists") {
		t.Errorf("stderr %q does not say the entity exists", r.stderr)
	}
	if m := getLine(t, cs, name, "a", "0001"); m["S"] != nil || m["N"] != float64(1) {
		t.Errorf("the existing entity after a refused insert: %v, want it unchanged", m)
	}
	// JSON lines: the entities before the one that exists are written.
	in := `{"PartitionKey":"a","RowKey":"new2","S":"z"}` + "\n" + `{"PartitionKey":"a","RowKey":"0000","S":"z"}` + "\n"
	r = tkIn(t, cs, in, "put", name, "--if-not-exists")
	wantCode(t, r, exitPrecondition, "put --if-not-exists of lines, the second existing")
	if !strings.Contains(r.stderr, "line 2") || !strings.Contains(r.stderr, "the 1 entities before it were written") {
		t.Errorf("stderr %q does not name line 2 and the one written before", r.stderr)
	}
	if m := getLine(t, cs, name, "a", "new2"); m["S"] != "z" {
		t.Errorf("the line before the existing entity: %v, want it written", m)
	}
}

// TestE2EPutIfNotExistsLostReply: an insert whose reply is lost, retried,
// then finds the entity, may have found its own first attempt: exit status
// 5 (the outcome is unknown), not 4.
func TestE2EPutIfNotExistsLostReply(t *testing.T) {
	az := testenv.Azurite(t)
	name := seedTable(t, az, nil)
	px, err := faults.Start(strings.TrimSuffix(az.Endpoint, "/"+az.Account))
	if err != nil {
		t.Fatal(err)
	}
	defer px.Close()
	pcs := azurite.ConnectionString(px.Endpoint(az.Account))

	px.SetRules(faults.Rule{Match: faults.And(faults.Method(http.MethodPost), faults.PathContains(name)), Times: 1, Fault: faults.DropAfterForward()})
	r := tk(t, pcs, "put", name, "PartitionKey=a", "RowKey=r", "S=lost", "--if-not-exists")
	wantCode(t, r, exitUnknown, "put --if-not-exists with a lost reply")
	if !strings.Contains(r.stderr, "outcome is unknown") {
		t.Errorf("stderr %q does not say the outcome is unknown", r.stderr)
	}
	if got := px.Injected(); got != 1 {
		t.Errorf("%d replies lost, want 1", got)
	}
	if m := getLine(t, az.ConnectionString, name, "a", "r"); m["S"] != "lost" {
		t.Errorf("the insert whose reply was lost: %v, want it stored", m)
	}
}

// TestE2EGetSelect: get --select prints the keys, Timestamp, the ETag and
// the properties named, no other.
func TestE2EGetSelect(t *testing.T) {
	az := testenv.Azurite(t)
	cs := az.ConnectionString
	name := seedTable(t, az, nil)
	wantCode(t, tk(t, cs, "put", name, "PartitionKey=p", "RowKey=r", "A=1", "B=2", "C=3"), exitOK, "put")

	tests := []struct {
		sel  string
		want []string // the properties besides the keys, Timestamp and ETag
	}{
		{"A", []string{"A"}},
		{"A, C", []string{"A", "C"}},
		{"PartitionKey", nil},
		{"Missing", nil},
	}
	for _, tt := range tests {
		r := tk(t, cs, "get", name, "p", "r", "--select", tt.sel)
		wantCode(t, r, exitOK, "get --select "+tt.sel)
		ms := jsonLines(t, r.stdout)
		if len(ms) != 1 {
			t.Fatalf("get --select %s printed %q, want one line", tt.sel, r.stdout)
		}
		var got []string
		for k := range ms[0] {
			switch k {
			case "PartitionKey", "RowKey", "Timestamp", "Timestamp@odata.type", "odata.etag":
			default:
				got = append(got, k)
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, tt.want) {
			t.Errorf("get --select %s: properties %v, want %v", tt.sel, got, tt.want)
		}
		for _, k := range []string{"PartitionKey", "RowKey", "Timestamp", "odata.etag"} {
			if ms[0][k] == nil {
				t.Errorf("get --select %s: no %s in %v", tt.sel, k, ms[0])
			}
		}
	}
	r := tk(t, cs, "get", name, "p", "r", "--select", "A,no-dash")
	wantCode(t, r, exitUsage, "get --select of a bad name")
	if !strings.Contains(r.stderr, `"no-dash"`) {
		t.Errorf("stderr %q does not name the bad property", r.stderr)
	}
}

// TestE2EQueryMarker: query --top N ends with the marker that goes on
// when more may follow; following the markers prints every entity once,
// in order, in every format.
func TestE2EQueryMarker(t *testing.T) {
	az := testenv.Azurite(t)
	cs := az.ConnectionString
	name := seed(t, az, []string{"a", "b", "c"}, 9) // 27
	other := seed(t, az, []string{"a"}, 1)

	var keys []string
	marker := ""
	for run := 0; ; run++ {
		args := []string{"query", name, "--top", "10"}
		if marker != "" {
			args = append(args, "--marker", marker)
		}
		r := tk(t, cs, args...)
		wantCode(t, r, exitOK, fmt.Sprintf("query run %d", run))
		ms := jsonLines(t, r.stdout)
		for _, m := range ms {
			keys = append(keys, m["PartitionKey"].(string)+"/"+m["RowKey"].(string))
		}
		marker = markerLine(t, r)
		if marker == "" {
			break
		}
		if len(ms) != 10 {
			t.Fatalf("run %d printed %d entities and a marker, want 10", run, len(ms))
		}
		if run > 5 {
			t.Fatalf("still a marker after %d runs", run)
		}
	}
	var want []string
	for _, pk := range []string{"a", "b", "c"} {
		for i := range 9 {
			want = append(want, fmt.Sprintf("%s/%04d", pk, i))
		}
	}
	if !slices.Equal(keys, want) {
		t.Errorf("following the markers printed %v, want %v", keys, want)
	}

	// The marker goes on in the table and csv formats too.
	r := tk(t, cs, "query", name, "--top", "20", "--format", "csv", "--select", "N")
	wantCode(t, r, exitOK, "query --format csv --top 20")
	m := markerLine(t, r)
	if m == "" {
		t.Fatalf("query --format csv --top 20 of 27 printed no marker:\n%s", r.stderr)
	}
	r = tk(t, cs, "query", name, "--top", "0", "--format", "table", "--select", "N", "--marker", m)
	wantCode(t, r, exitOK, "query --format table --marker")
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if len(lines) != 8 || !strings.HasPrefix(lines[1], "c             0002") || markerLine(t, r) != "" {
		t.Errorf("the rest after 20 printed:\n%s(stderr %q), want a header and the 7 rows from c/0002, no marker", r.stdout, r.stderr)
	}

	// A marker that cannot go on this query is refused before any request.
	tests := []struct {
		what string
		args []string
	}{
		{"malformed", []string{"query", name, "--marker", "not a marker"}},
		{"not base64url", []string{"query", name, "--marker", "e30"}},
		{"another filter", []string{"query", name, "--marker", m, "--filter", "N gt 1"}},
		{"another select", []string{"query", name, "--marker", m}},
		{"another table", []string{"query", other, "--marker", m, "--select", "N"}},
	}
	for _, tt := range tests {
		r := tk(t, cs, tt.args...)
		wantCode(t, r, exitUsage, "query --marker "+tt.what)
		if r.stdout != "" || !strings.Contains(r.stderr, "--marker") {
			t.Errorf("query --marker %s: stdout %q, stderr %q; want nothing printed and a message about --marker", tt.what, r.stdout, r.stderr)
		}
	}
}

// TestE2EQueryStreams: table and csv print any number of rows as they
// come. A property first seen after the rows read ahead gets a new table
// header; csv, whose one header is printed, stops with an error naming it
// rather than drop its values.
func TestE2EQueryStreams(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 1,100 entities four times; -short skips it")
	}
	az := testenv.Azurite(t)
	cs := az.ConnectionString
	const n, late = readAhead + 100, readAhead + 50
	ents := make([]table.Entity, n)
	for i := range ents {
		ents[i] = table.NewEntity("s", fmt.Sprintf("%05d", i))
		ents[i].Properties["N"] = int32(i)
		if i >= late {
			ents[i].Properties["Late"] = fmt.Sprintf("late %d", i)
		}
	}
	name := seedEntities(t, az, ents)

	r := tk(t, cs, "query", name, "--top", "0", "--format", "table")
	wantCode(t, r, exitOK, "query --format table --top 0")
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	var heads []int
	rows := 0
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "PartitionKey"):
			heads = append(heads, i)
		case strings.HasPrefix(l, "s "):
			rows++
		}
	}
	if rows != n || len(heads) != 2 || heads[0] != 0 || heads[1] != readAhead+2 || lines[readAhead+1] != "" {
		t.Fatalf("query --format table: %d rows, headers at lines %v; want %d rows, headers at 0 and %d after a blank line", rows, heads, n, readAhead+2)
	}
	h2 := lines[heads[1]]
	if strings.Contains(lines[0], "Late") || !strings.HasSuffix(h2, "Late") {
		t.Errorf("headers %q and %q: want Late only in the second, at the right", lines[0], h2)
	}
	first := lines[heads[1]+1+late-readAhead]
	if got, want := strings.Index(first, fmt.Sprintf("late %d", late)), strings.Index(h2, "Late"); got != want {
		t.Errorf("the first Late value at column %d, its header at %d:\n%s\n%s", got, want, h2, first)
	}
	if markerLine(t, r) != "" {
		t.Errorf("query --top 0 printed a marker: %s", r.stderr)
	}

	r = tk(t, cs, "query", name, "--top", "0", "--format", "csv")
	wantCode(t, r, exitFailed, "query --format csv of a property first seen late")
	if got := strings.Count(r.stdout, "\n"); got != 1+late || !strings.Contains(r.stderr, "property Late") || !strings.Contains(r.stderr, "--select") {
		t.Errorf("query --format csv stopped after %d lines (want the header and %d rows) with %q; want it to name Late and --select", got, late, r.stderr)
	}
	if markerLine(t, r) != "" {
		t.Errorf("a csv stopped for its columns printed a marker: %s", r.stderr)
	}

	r = tk(t, cs, "query", name, "--top", "0", "--format", "csv", "--select", "N,Late")
	wantCode(t, r, exitOK, "query --format csv --select N,Late")
	if got := strings.Count(r.stdout, "\n"); got != 1+n || !strings.HasSuffix(r.stdout, fmt.Sprintf(",%d,Int32,late %d,String\n", n-1, n-1)) {
		t.Errorf("query --format csv --select N,Late printed %d lines ending %q, want %d ending with the last entity", got, r.stdout[max(0, len(r.stdout)-60):], 1+n)
	}

	r = tk(t, cs, "query", name, "--top", "0")
	wantCode(t, r, exitOK, "query --top 0")
	if got := len(jsonLines(t, r.stdout)); got != n {
		t.Errorf("query --top 0 printed %d lines, want %d", got, n)
	}

	// A query cut short by a failed request ends with the marker after the
	// last row printed, and the marker goes on from there.
	px, err := faults.Start(strings.TrimSuffix(az.Endpoint, "/"+az.Account))
	if err != nil {
		t.Fatal(err)
	}
	defer px.Close()
	nextPage := func(r *http.Request) bool { return r.URL.Query().Get("NextPartitionKey") != "" }
	px.SetRules(faults.Rule{Match: faults.And(faults.PathContains(name), nextPage), Times: 1, Fault: faults.Status(http.StatusBadRequest, "InvalidInput", nil)})
	r = tk(t, azurite.ConnectionString(px.Endpoint(az.Account)), "query", name, "--top", "0", "--format", "table")
	wantCode(t, r, exitFailed, "query whose second page fails")
	m := markerLine(t, r)
	if got := strings.Count(r.stdout, "\n"); got != 1+readAhead || m == "" || px.Injected() != 1 {
		t.Fatalf("query whose second page fails: %d lines, marker %q, %d faults; want a header, %d rows and a marker after one fault\n%s", got, m, px.Injected(), readAhead, r.stderr)
	}
	r = tk(t, cs, "query", name, "--top", "0", "--marker", m)
	wantCode(t, r, exitOK, "query --marker after a failure")
	rest := jsonLines(t, r.stdout)
	if len(rest) != n-readAhead || rest[0]["RowKey"] != fmt.Sprintf("%05d", readAhead) {
		t.Errorf("after the failure's marker: %d entities from %v, want %d from %05d", len(rest), rest[0]["RowKey"], n-readAhead, readAhead)
	}
}

// seedEntities creates a table holding ents, deleted when the test ends,
// and returns its name.
func seedEntities(t *testing.T, az *testenv.Env, ents []table.Entity) string {
	t.Helper()
	name := seedTable(t, az, nil)
	svc, err := table.NewService(az.ConnectionString, nil)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := table.New[table.Entity](svc, name)
	if err != nil {
		t.Fatal(err)
	}
	ops := make([]batch.Op[table.Entity], len(ents))
	for i, e := range ents {
		ops[i] = batch.Op[table.Entity]{Entity: e}
	}
	if _, err := batch.Write(context.Background(), tbl, ops, &batch.WriteOptions{InFlight: 8}); err != nil {
		t.Fatal(err)
	}
	return name
}
