package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/query"
	"github.com/tablekit/tablekit/table"
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

// TestE2EImportRawRejects imports, as upserts (raw entities), a file whose
// bad lines share partitions with good ones: each bad line is rejected
// with its own reason naming what is wrong, whether reading it (not JSON,
// a value outside its type) or writing it (a name, a key, a nested value)
// found it, and every good line is stored, also those after a bad one in
// its partition.
func TestE2EImportRawRejects(t *testing.T) {
	az := testenv.Azurite(t)
	cs := az.ConnectionString
	dst, dname := newDynTable(t, cs)
	lines := []struct {
		text, reason string // reason: a part of the reject's; "" for a good line
	}{
		{`{"PartitionKey":"p","RowKey":"1","N":1}`, ""},
		{`{"PartitionKey":"p","RowKey":"2","1bad":1}`, "1bad"},
		{`{"PartitionKey":"p","RowKey":"3","N":1}`, ""},
		{`{"PartitionKey":"p","RowKey":"4","X@odata.type":"Edm.Int64","X":"many"}`, "X"},
		{`{"PartitionKey":"p","RowKey":"5","Obj":{"a":1}}`, "Obj"},
		{`{"PartitionKey":"p#q","RowKey":"6","N":1}`, "PartitionKey"},
		{`{"PartitionKey":"p","RowKey":"7","N":1,}`, "invalid"},
		{`{"PartitionKey":"p","RowKey":"8","D@odata.type":"Edm.Double","D":"-INF"}`, ""},
		{`{"PartitionKey":"p","RowKey":"9","N":1}`, ""},
	}
	var in strings.Builder
	for _, l := range lines {
		in.WriteString(l.text + "\n")
	}
	dir := t.TempDir()
	file, rejects := filepath.Join(dir, "in.jsonl"), filepath.Join(dir, "rejects.jsonl")
	if err := os.WriteFile(file, []byte(in.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	wantCode(t, tk(t, cs, "import", dname, file, "--rejects", rejects), exitFailed, "import with rejects")
	b, err := os.ReadFile(rejects)
	if err != nil {
		t.Fatal(err)
	}
	got := map[int]reject{}
	last := int64(0)
	for l := range bytes.Lines(b) {
		var rj reject
		if err := json.Unmarshal(l, &rj); err != nil {
			t.Fatalf("rejects line %q: %v", l, err)
		}
		if rj.Line < last {
			t.Errorf("reject of line %d after line %d's, want line order", rj.Line, last)
		}
		got[int(rj.Line)], last = rj, rj.Line
	}
	stored := readTable(t, dst)
	for i, l := range lines {
		rj, rejected := got[i+1]
		switch {
		case l.reason == "" && (rejected || stored["p/"+strconv.Itoa(i+1)].PartitionKey == ""):
			t.Errorf("line %d: rejected %v (%s), stored %v; want it stored", i+1, rejected, rj.Reason, stored["p/"+strconv.Itoa(i+1)].PartitionKey != "")
		case l.reason != "" && !rejected:
			t.Errorf("line %d: not rejected; want a reject naming %s", i+1, l.reason)
		case l.reason != "" && (!strings.Contains(rj.Reason, l.reason) || rj.Input != l.text):
			t.Errorf("line %d: reject %q of input %q; want a reason naming %s, the line as input", i+1, rj.Reason, rj.Input, l.reason)
		}
	}
	if d, ok := stored["p/8"].Properties["D"].(float64); !ok || !math.IsInf(d, -1) {
		t.Errorf("p/8's D = %#v, want -Inf (written from -INF)", stored["p/8"].Properties["D"])
	}
}

// textEntity holds a text whose length and letters vary by entity: a line
// written from a buffer that another entity's read had filled shows.
type textEntity struct {
	PartitionKey string
	RowKey       string
	Text         string
}

// TestE2EExportLinesExact exports a table whose entities' properties take
// many sizes, with pages read ahead in parallel while each written
// entity's buffer goes back to be read into again (sink_file.go,
// writeRaw): every line is the one a library read that keeps its entities
// builds (RawEntity.AppendJSON), in key order with --ordered.
func TestE2EExportLinesExact(t *testing.T) {
	az := testenv.Azurite(t)
	cs := az.ConnectionString
	var ents []textEntity
	for i := range 2000 {
		text := strings.Repeat(string(rune('a'+i%26)), 1+i*37%3000)
		ents = append(ents, textEntity{fmt.Sprintf("p%02d", i%20), fmt.Sprintf("%05d", i), text})
	}
	name := seedTableOf(t, az, ents)
	svc, err := table.NewService(cs, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := testenv.Ctx(t)
	raw, err := table.New[table.RawEntity](svc, name)
	if err != nil {
		t.Fatal(err)
	}
	var want []string // in key order
	for e, err := range query.New(raw).All(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, string(e.AppendJSON(nil)))
	}
	if len(want) != len(ents) {
		t.Fatalf("the library read %d entities, want %d", len(want), len(ents))
	}
	for _, ordered := range []bool{false, true} {
		file := filepath.Join(t.TempDir(), "out.jsonl")
		args := []string{"export", name, "-o", file, "--parallel", "8"}
		if ordered {
			args = append(args, "--ordered")
		}
		wantCode(t, tk(t, cs, args...), exitOK, "export")
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		got, w := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n"), want
		if !ordered {
			// Compared as sets; want itself stays in the library's key
			// order for the ordered export.
			slices.Sort(got)
			w = slices.Sorted(slices.Values(want))
		}
		if len(got) != len(w) {
			t.Fatalf("ordered %v: exported %d lines, want %d", ordered, len(got), len(w))
		}
		for i := range w {
			if got[i] != w[i] {
				t.Fatalf("ordered %v: line %d is\n%.200s\nwant\n%.200s", ordered, i+1, got[i], w[i])
			}
		}
	}
}
