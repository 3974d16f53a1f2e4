package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tablekit/tablekit/devtools/testenv"
)

// nodeTyped are entities in the Node SDK's form, one line each, with a
// value of every EDM type, the awkward Doubles among them: what another
// client wrote, which export and import must carry without retyping.
var nodeTyped = []string{
	`{"partitionKey":"p","rowKey":"1","I64":{"value":"9007199254740993","type":"Int64"},"Small64":{"value":"5","type":"Int64"},"When":{"value":"2024-02-29T23:59:59.1234567Z","type":"DateTime"},"Id":{"value":"0f8fad5b-d9cb-469f-a165-70867728950e","type":"Guid"},"Bin":{"value":"AAEC/w==","type":"Binary"},"I32":-7,"B":true,"S":"a \"quoted\" é"}`,
	`{"partitionKey":"p","rowKey":"2","NaN":{"value":"NaN","type":"Double"},"Inf":{"value":"Infinity","type":"Double"},"NegInf":{"value":"-Infinity","type":"Double"},"Whole":{"value":"1","type":"Double"},"Frac":{"value":"0.1","type":"Double"}}`,
	`{"partitionKey":"p q","rowKey":"3","S":""}`,
}

// TestE2ERawExportExact exports entities another client (the Node SDK)
// wrote: every member of each JSON line is the service's own bytes for
// it, and the only members added are the Edm.Double annotations of
// numbers the service sent bare. The file imported into a new table is
// then read by the Node SDK as the same entities, every type and value.
func TestE2ERawExportExact(t *testing.T) {
	az := testenv.Azurite(t)
	cs := az.ConnectionString
	_, sname := newDynTable(t, cs)
	_, dname := newDynTable(t, cs)
	az.NodeSDK(t, "put", sname, []byte(strings.Join(nodeTyped, "\n")+"\n"))

	sent := serviceEntities(t, cs, sname)
	file := filepath.Join(t.TempDir(), "out.jsonl")
	wantCode(t, tk(t, cs, "export", sname, "-o", file), exitOK, "export")
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lines := 0
	for sc := bufio.NewScanner(f); sc.Scan(); lines++ {
		var got map[string]json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &got); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		var pk, rk string
		_ = json.Unmarshal(got["PartitionKey"], &pk)
		_ = json.Unmarshal(got["RowKey"], &rk)
		want, ok := sent[pk+"/"+rk]
		if !ok {
			t.Fatalf("exported %s/%s, which the service did not send", pk, rk)
		}
		for name, w := range want {
			if strings.HasPrefix(name, "odata.") {
				continue
			}
			if g, ok := got[name]; !ok || !bytes.Equal(g, w) {
				t.Errorf("%s/%s %s: exported %s, want the service's %s", pk, rk, name, g, w)
			}
		}
		for name, g := range got {
			if _, ok := want[name]; ok || name == "Timestamp@odata.type" {
				continue
			}
			base, anno := strings.CutSuffix(name, "@odata.type")
			if v := want[base]; !anno || string(g) != `"Edm.Double"` || len(v) == 0 || v[0] == '"' {
				t.Errorf("%s/%s: exported %s: %s, which the service did not send (only a bare number's Edm.Double may be added)", pk, rk, name, g)
			}
		}
	}
	if lines != len(nodeTyped) {
		t.Fatalf("exported %d lines, want %d", lines, len(nodeTyped))
	}

	wantCode(t, tk(t, cs, "import", dname, file), exitOK, "import")
	want := nodeLines(t, az.NodeSDK(t, "list", sname, nil))
	got := nodeLines(t, az.NodeSDK(t, "list", dname, nil))
	if len(got) != len(want) {
		t.Fatalf("Node read %d entities imported, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("Node read the import as\n%s\nwant what it wrote:\n%s", got[i], want[i])
		}
	}
}

// serviceEntities reads every entity of the table as the service sends
// it, through a plain HTTP request with a read SAS: each member's bytes,
// by "pk/rk".
func serviceEntities(t *testing.T, cs, name string) map[string]map[string]json.RawMessage {
	t.Helper()
	u, _ := sasURL(t, cs, name, "--permissions", "r")
	base, q, _ := strings.Cut(u, "?")
	req, err := http.NewRequestWithContext(testenv.Ctx(t), http.MethodGet, base+"()?"+q, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json;odata=minimalmetadata")
	req.Header.Set("x-ms-version", "2019-02-02")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var page struct{ Value []map[string]json.RawMessage }
	if err := json.NewDecoder(resp.Body).Decode(&page); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s, %v", name, resp.Status, err)
	}
	got := map[string]map[string]json.RawMessage{}
	for _, e := range page.Value {
		var pk, rk string
		_ = json.Unmarshal(e["PartitionKey"], &pk)
		_ = json.Unmarshal(e["RowKey"], &rk)
		got[pk+"/"+rk] = e
	}
	if len(got) != len(nodeTyped) {
		t.Fatalf("the service sent %d entities, want %d", len(got), len(nodeTyped))
	}
	return got
}

// nodeLines are the Node SDK's list output, each line with its members
// sorted (JSON of a map), in the table's key order.
func nodeLines(t *testing.T, out []byte) []string {
	t.Helper()
	var ls []string
	for l := range bytes.Lines(out) {
		var m map[string]any
		if err := json.Unmarshal(l, &m); err != nil {
			t.Fatalf("Node listed %q: %v", l, err)
		}
		b, _ := json.Marshal(m)
		ls = append(ls, string(b))
	}
	return ls
}
