package txwire

import (
	"bytes"
	"context"
	"net/url"
	"regexp"
	"strconv"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
)

var boundaries = regexp.MustCompile(`(batch|changeset)_[0-9a-f-]{36}`)

// bodyKeys are keys whose escaping in the request line must match
// aztables' byte for byte.
var bodyKeys = []struct{ pk, rk string }{
	{"O'Brien ü", "r"},
	{"a b+c%d/e?f#g", "über 日本"},
	{"emoji \U0001F600 (x) [y] {z}", "* ! $ & ; = @ , ~ :"},
	{"pk", ""},
	{"p00", "00000050"},   // plain keys: the URL is cut from a template
	{"a-b_c.d~E9", "..."}, // plain, and path.Join's "." and ".." do not apply
}

// TestBodyMatchesAztables: the body tablekit writes is byte for byte the
// one aztables writes for the same operations (boundaries aside), once the
// entities are in the form aztables re-encodes them to, and its length is
// what the Sizer computes.
func TestBodyMatchesAztables(t *testing.T) {
	tableURLs := []struct {
		url string
		sas bool
	}{
		{"http://127.0.0.1:10002/devstoreaccount1/mytable", false},
		{"https://acct.table.core.windows.net/mytable?sv=2019-02-02&sp=raud&sig=abc%2Bdef%3D", true},
		{"https://acct.table.cosmos.azure.com/mytable", false},
	}
	types := []aztables.TransactionType{
		aztables.TransactionTypeAdd, aztables.TransactionTypeInsertMerge, aztables.TransactionTypeInsertReplace,
		aztables.TransactionTypeUpdateMerge, aztables.TransactionTypeUpdateReplace, aztables.TransactionTypeDelete,
	}
	for _, tu := range tableURLs {
		tr := &captureTransport{}
		c := newClient(t, tu.url, tu.sas, tr)
		u, _ := url.Parse(tu.url)
		s := NewSizer(EndpointOf(u), "mytable", mergeAsPost(tu.url))
		var actions []aztables.TransactionAction
		var parts [][]byte
		want := Envelope()
		for i := range len(types) * len(bodyKeys) {
			typ, k := types[i%len(types)], bodyKeys[i/len(types)]
			pk, rk := k.pk, k.rk+" "+string(rune('a'+i%len(types)))
			raw := []byte(`{"RowKey":` + quote(rk) + `,"PartitionKey":` + quote(pk) + `,"V":1.0,"S":"<&>"}`)
			canon, err := Canonical(raw)
			if err != nil {
				t.Fatal(err)
			}
			a := aztables.TransactionAction{ActionType: typ, Entity: raw}
			op := Op{Type: typ, PartitionKey: pk, RowKey: rk, EntityLen: len(canon)}
			if typ == aztables.TransactionTypeUpdateMerge || typ == aztables.TransactionTypeDelete {
				e := azcore.ETag(`W/"datetime'2024-01-02T03%3A04%3A05Z'"`)
				a.IfMatch, op.IfMatch = &e, (*string)(&e)
			}
			part, err := s.AppendPart(nil, op, canon)
			if err != nil {
				t.Fatal(err)
			}
			n, _ := s.OpSize(op)
			if got := DelimiterLen() + len(part); got != n {
				t.Errorf("%s %s: part adds %d bytes, OpSize %d", tu.url, typ, got, n)
			}
			want += n
			actions, parts = append(actions, a), append(parts, part)
		}
		_, _ = c.SubmitTransaction(context.Background(), actions, nil)
		// Appended after what dst holds, which stays.
		body, ct := AppendBody([]byte("kept"), parts)
		if !bytes.HasPrefix(body, []byte("kept")) {
			t.Errorf("%s: body starts %q, want what dst held (kept)", tu.url, body[:min(len(body), 8)])
		}
		body = body[len("kept"):]
		if len(body) != want {
			t.Errorf("%s: body has %d bytes, want %d", tu.url, len(body), want)
		}
		got := boundaries.ReplaceAllString(string(body), "$1_X")
		az := boundaries.ReplaceAllString(string(tr.last()), "$1_X")
		if got != az {
			t.Errorf("%s:\n got %q\nwant %q (aztables)", tu.url, got, az)
		}
		if !boundaries.MatchString(ct) || !regexp.MustCompile(`^multipart/mixed; boundary=batch_`).MatchString(ct) {
			t.Errorf("Content-Type = %q", ct)
		}
	}
}

// TestHeaderNum: a header written from a number has the length OpSize
// counts and the decimal text aztables writes.
func TestHeaderNum(t *testing.T) {
	for _, n := range []int{1, 9, 10, 99, 100, 999, 1000, 65535, 1 << 22} {
		h := header{key: "Content-Length", num: n}
		want := strconv.Itoa(n)
		if got := string(h.appendValue(nil)); got != want {
			t.Errorf("appendValue of %d: got %q, want %q", n, got, want)
		}
		if got := h.len(); got != len(want) {
			t.Errorf("len of %d: got %d, want %d", n, got, len(want))
		}
	}
	if h := (header{key: "If-Match", value: "*"}); h.len() != 1 || string(h.appendValue(nil)) != "*" {
		t.Errorf("a text header: got %d %q, want 1 %q", h.len(), h.appendValue(nil), "*")
	}
}
