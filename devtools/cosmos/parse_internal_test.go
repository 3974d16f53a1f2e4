package cosmos

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
)

func TestParsePath(t *testing.T) {
	tests := []struct {
		in   string
		want path
	}{
		{"/", path{}},
		{"/Tables", path{table: "Tables"}},
		{"/Tables('t1')", path{table: "Tables", parens: true}},
		{"/$batch", path{table: "$batch"}},
		{"/t1", path{table: "t1"}},
		{"/t1()", path{table: "t1", parens: true}},
		{"/t1(PartitionKey='p',RowKey='r')", path{table: "t1", parens: true, keyed: true, pk: "p", rk: "r"}},
		{"/t1(PartitionKey='O''Brien',RowKey='')", path{table: "t1", parens: true, keyed: true, pk: "O'Brien", rk: ""}},
		{"/t1(PartitionKey='a,b',RowKey='c)d')", path{table: "t1", parens: true, keyed: true, pk: "a,b", rk: "c)d"}},
		{"/t1(PartitionKey='p')", path{table: "t1", parens: true}},
		{"/t1(RowKey='r',PartitionKey='p')", path{table: "t1", parens: true}},
		{"/acct/t1", path{table: "acct/t1"}},
	}
	for _, tt := range tests {
		if got := parsePath(tt.in); got != tt.want {
			t.Errorf("parsePath(%q): got %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

// aztablesBatch is a $batch body laid out as aztables v1.4.1 writes one
// for a Cosmos DB endpoint: an insert, a merge as POST with X-HTTP-Method,
// a delete.
const aztablesBatch = "--batch_1\r\nContent-Type: multipart/mixed; boundary=changeset_2\r\n\r\n" +
	"--changeset_2\r\nContent-Transfer-Encoding: binary\r\nContent-Type: application/http\r\n\r\n" +
	"POST https://acct.table.cosmos.azure.com/t1?%24format=application%2Fjson%3Bodata%3Dminimalmetadata HTTP/1.1\r\n" +
	"Accept: application/json;odata=minimalmetadata\r\nContent-Length: 33\r\nContent-Type: application/json\r\nPrefer: return-no-content\r\n\r\n" +
	`{"PartitionKey":"p","RowKey":"1"}` + "\r\n" +
	"--changeset_2\r\nContent-Transfer-Encoding: binary\r\nContent-Type: application/http\r\n\r\n" +
	"POST https://acct.table.cosmos.azure.com/t1(PartitionKey='p',RowKey='2') HTTP/1.1\r\n" +
	"Accept: application/json\r\nContent-Length: 39\r\nIf-Match: *\r\nX-Http-Method: MERGE\r\n\r\n" +
	`{"PartitionKey":"p","RowKey":"2","N":1}` + "\r\n" +
	"--changeset_2\r\nContent-Transfer-Encoding: binary\r\nContent-Type: application/http\r\n\r\n" +
	"DELETE https://acct.table.cosmos.azure.com/t1(PartitionKey='p',RowKey='3') HTTP/1.1\r\n" +
	"Accept: application/json;odata=minimalmetadata\r\nIf-Match: *\r\n\r\n" +
	"\r\n--changeset_2--\r\n\r\n--batch_1--\r\n"

func TestParseBatch(t *testing.T) {
	b, err := parseBatch("multipart/mixed; boundary=batch_1", []byte(aztablesBatch))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b.encode()), aztablesBatch; got != want {
		t.Errorf("encode(parse(body)): got\n%q\nwant\n%q", got, want)
	}
	type op struct {
		method, pk, rk string
		merge          bool
		body           string
	}
	var got []op
	for _, o := range b.ops {
		got = append(got, op{o.method, o.path.pk, o.path.rk, o.merge(), string(o.body)})
	}
	want := []op{
		{"POST", "", "", false, `{"PartitionKey":"p","RowKey":"1"}`},
		{"POST", "p", "2", true, `{"PartitionKey":"p","RowKey":"2","N":1}`},
		{"DELETE", "p", "3", false, ""},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("operations: got %+v, want %+v", got, want)
	}
	for _, bad := range []struct{ ct, body string }{
		{"application/json", aztablesBatch},
		{"multipart/mixed; boundary=batch_1", "--batch_1\r\nContent-Type: application/http\r\n\r\nGET x HTTP/1.1\r\n\r\n\r\n--batch_1--"},
		{"multipart/mixed; boundary=batch_1", strings.Replace(aztablesBatch, "HTTP/1.1\r\nAccept", "\r\nAccept", 1)},
	} {
		if _, err := parseBatch(bad.ct, []byte(bad.body)); err == nil {
			t.Errorf("parseBatch(%q, %.40q...): got nil error, want one", bad.ct, bad.body)
		}
	}
}

func TestAzuriteURL(t *testing.T) {
	s := &Server{account: "devstoreaccount1"}
	s.target = mustURL("http://127.0.0.1:10002")
	tests := []struct{ in, want string }{
		{"https://devstoreaccount1.table.cosmos.azure.com/t1", "http://127.0.0.1:10002/devstoreaccount1/t1"},
		{"https://devstoreaccount1.table.cosmos.azure.com/t1(PartitionKey='a%20b',RowKey='c')?$format=x", "http://127.0.0.1:10002/devstoreaccount1/t1(PartitionKey='a%20b',RowKey='c')?$format=x"},
	}
	for _, tt := range tests {
		if got := s.azuriteURL(tt.in); got != tt.want {
			t.Errorf("azuriteURL(%q): got %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestSplitEntity(t *testing.T) {
	props := map[string]any{"PartitionKey": "p", "RowKey": "r", "odata.etag": "x"}
	for i := range 40 {
		props[fmt.Sprintf("S%02d", i)] = strings.Repeat("s", 30000)
	}
	props["N"] = "5"
	props["N@odata.type"] = "Edm.Int64"
	body, _ := json.Marshal(props)
	chunks, err := splitEntity(body)
	if err != nil {
		t.Fatal(err)
	}
	if len(chunks) < 2 {
		t.Fatalf("chunks: got %d, want at least 2 for %d bytes", len(chunks), len(body))
	}
	joined := map[string]any{}
	for i, c := range chunks {
		if len(c) > azuriteEntityMax {
			t.Errorf("chunk %d: got %d bytes, want at most %d", i, len(c), azuriteEntityMax)
		}
		var m map[string]any
		if err := json.Unmarshal(c, &m); err != nil {
			t.Fatal(err)
		}
		if m["PartitionKey"] != "p" || m["RowKey"] != "r" {
			t.Errorf("chunk %d: got keys %v/%v, want p/r", i, m["PartitionKey"], m["RowKey"])
		}
		if _, n := m["N"]; n != (m["N@odata.type"] != nil) {
			t.Errorf("chunk %d: N and its annotation were split apart", i)
		}
		for k, v := range m {
			joined[k] = v
		}
	}
	if got, want := fmt.Sprint(joined), fmt.Sprint(props); got != want {
		t.Errorf("the chunks together differ from the entity")
	}
	if _, err := splitEntity([]byte("[1]")); err == nil {
		t.Errorf("splitEntity of an array: got nil error, want one")
	}
}

func TestScanReply(t *testing.T) {
	reply := "--batchresponse_1\r\nContent-Type: multipart/mixed; boundary=changesetresponse_2\r\n\r\n" +
		"--changesetresponse_2\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n" +
		"HTTP/1.1 204 No Content\r\nContent-ID: 1\r\nETag: W/\"a\"\r\n\r\n\r\n" +
		"--changesetresponse_2\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n" +
		"HTTP/1.1 201 Created\r\netag: W/\"bb\"\r\n\r\n{}\r\n" +
		"--changesetresponse_2\r\n\r\nHTTP/1.1 424 Failed Dependency\r\n\r\n\r\n--changesetresponse_2--\r\n--batchresponse_1--\r\n"
	parts := scanReply([]byte(reply))
	var got []string
	for _, p := range parts {
		at := ""
		if p.etag != "" {
			at = reply[p.etagAt : p.etagAt+len(p.etag)]
		}
		got = append(got, fmt.Sprintf("%d %s %s", p.status, p.etag, at))
	}
	want := []string{`204 W/"a" W/"a"`, `201 W/"bb" W/"bb"`, "424  "}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("scanReply: got %q, want %q", got, want)
	}
}

func TestTokens(t *testing.T) {
	s := &Server{addr: "127.0.0.1:1"}
	npk, nrk := s.encodeToken(42, 1000)
	id, off, ok := s.decodeToken(npk, nrk)
	if !ok || id != 42 || off != 1000 {
		t.Errorf("decode(encode(42, 1000)): got %d %d %v, want 42 1000 true", id, off, ok)
	}
	other := &Server{addr: "127.0.0.1:2"}
	for _, tt := range []struct{ npk, nrk string }{
		{npk, ""}, {npk, nrk + "x"}, {"p1", "r1"}, {`{"token":"+RID:~!!!","range":{}}`, s.check(`{"token":"+RID:~!!!","range":{}}`)},
	} {
		if _, _, ok := s.decodeToken(tt.npk, tt.nrk); ok {
			t.Errorf("decodeToken(%q, %q): got ok, want refused", tt.npk, tt.nrk)
		}
	}
	if _, _, ok := other.decodeToken(npk, nrk); ok {
		t.Errorf("another stand-in's token: got ok, want refused")
	}
}

func TestReorder(t *testing.T) {
	mk := func() []row {
		var rows []row
		for i := range 50 {
			rows = append(rows, row{key: fmt.Sprintf("p\x00%02d", i)})
		}
		return rows
	}
	keys := func(rows []row) string {
		var b bytes.Buffer
		for _, r := range rows {
			b.WriteString(r.key[2:] + " ")
		}
		return b.String()
	}
	a, b, c := mk(), mk(), mk()
	reorder(a, 1)
	reorder(b, 1)
	reorder(c, 2)
	if keys(a) != keys(b) {
		t.Errorf("same seed: got %s and %s, want the same order", keys(a), keys(b))
	}
	if keys(a) == keys(c) || keys(a) == keys(mk()) {
		t.Errorf("orders: seed 1 %s, seed 2 %s, key order %s: want three different", keys(a), keys(c), keys(mk()))
	}
}

func mustURL(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		panic(err)
	}
	return u
}
