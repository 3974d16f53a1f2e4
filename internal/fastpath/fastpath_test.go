package fastpath

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"

	"github.com/tablekit/tablekit/internal/wire"
)

type echo struct{ sent []byte }

func (e *echo) Do(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		e.sent, _ = io.ReadAll(r.Body)
	}
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(`{"value":[{"a":1}]}`)), Request: r}, nil
}

// TestPolicyFailsLoudly: a Holder the policy cannot use fails the request
// before anything is sent.
func TestPolicyFailsLoudly(t *testing.T) {
	tests := []struct {
		name, method, url string
		h                 Holder
		wantErr           bool
	}{
		{"write swapped", http.MethodPut, "https://a/t(PartitionKey='p',RowKey='r')", Holder{Kind: Write, Out: []byte(`{"x":1}`)}, false},
		{"insert swapped", http.MethodPost, "https://a/t", Holder{Kind: Write, Out: []byte(`{"x":1}`)}, false},
		{"write without bytes", http.MethodPut, "https://a/t(PartitionKey='p',RowKey='r')", Holder{Kind: Write}, true},
		{"write holder on a read", http.MethodGet, "https://a/t()", Holder{Kind: Write, Out: []byte(`{}`)}, true},
		{"batch holder on an insert", http.MethodPost, "https://a/t", Holder{Kind: Batch, Out: []byte(`x`)}, true},
		{"batch swapped", http.MethodPost, "https://a/$batch", Holder{Kind: Batch, Out: []byte(`x`), ContentType: "multipart/mixed; boundary=b"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := &echo{}
			pl := runtime.NewPipeline("m", "v", runtime.PipelineOptions{PerCall: []policy.Policy{Policy{}}}, &policy.ClientOptions{Transport: tr})
			h := tc.h
			req, err := runtime.NewRequest(With(context.Background(), &h), tc.method, tc.url)
			if err != nil {
				t.Fatal(err)
			}
			_ = req.SetBody(streaming.NopCloser(bytes.NewReader([]byte(`{"placeholder":1}`))), "application/json")
			_, err = pl.Do(req)
			if got := errors.Is(err, ErrNotSwapped); got != tc.wantErr {
				t.Fatalf("got error %v, want ErrNotSwapped: %v", err, tc.wantErr)
			}
			if !tc.wantErr && !bytes.Equal(tr.sent, tc.h.Out) {
				t.Errorf("sent %q, want %q", tr.sent, tc.h.Out)
			}
			if tc.wantErr && tr.sent != nil {
				t.Errorf("sent %q, want nothing sent", tr.sent)
			}
		})
	}
}

// TestReadKeepsBody: aztables decodes an empty page; the Holder has the
// downloaded one.
func TestReadKeepsBody(t *testing.T) {
	pl := runtime.NewPipeline("m", "v", runtime.PipelineOptions{PerCall: []policy.Policy{Policy{}}}, &policy.ClientOptions{Transport: &echo{}})
	h := &Holder{Kind: Read}
	req, _ := runtime.NewRequest(With(context.Background(), h), http.MethodGet, "https://a/t()")
	resp, err := pl.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := runtime.Payload(resp)
	if string(got) != `{"value":[]}` || string(h.In) != `{"value":[{"a":1}]}` || !h.Swapped {
		t.Errorf("aztables got %s, holder %s (swapped %v)", got, h.In, h.Swapped)
	}
}

func TestEntities(t *testing.T) {
	tests := []struct {
		page    string
		want    []string
		wantErr bool
	}{
		{`{"value":[]}`, nil, false},
		{`{"odata.metadata":"x","value":[{"a":1}, {"b":"}"}]}`, []string{`{"a":1}`, `{"b":"}"}`}, false},
		{`{"value":[1]}`, nil, true},
		{`{"value":{}}`, nil, true},
		{`{"value":[{"a":1}`, []string{`{"a":1}`}, true},
		{`{}`, nil, false},
	}
	for _, tc := range tests {
		var got []string
		err := Entities([]byte(tc.page), func(e []byte) error { got = append(got, string(e)); return nil })
		if (err != nil) != tc.wantErr || strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("Entities(%s) = %q, %v; want %q, error %v", tc.page, got, err, tc.want, tc.wantErr)
		}
	}
}

// TestEntitiesAt: decoding each entity where it lies yields the entities
// and the errors of Entities, for malformed pages and the nesting limit
// too (counted from the page, not from the entity). After an error what
// each collected is discarded.
func TestEntitiesAt(t *testing.T) {
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	pages := []string{
		`{"value":[]}`,
		`{"odata.metadata":"x","value":[{"a":1}, {"b":"}"} ,{"c":[1,{"d":2}]}]}`,
		`{"value":[1]}`,
		`{"value":{}}`,
		`{"value":[{"a":1}`,
		`{"value":[{"a":1},{"b":tru}]}`,
		"{\"value\":[{\"a\":1},{\"b\":\"\x01\"}]}",
		`{"value":[{"a":1}]} x`,
		`{"value":[{"a":` + deep(9997) + `}]}`, `{"value":[{"a":` + deep(9996) + `}]}`,
		`{"value":[{"a":` + deep(9998) + `}]}`,
		`{}`,
	}
	for _, page := range pages {
		var want, got []string
		wantErr := Entities([]byte(page), func(e []byte) error { want = append(want, string(e)); return nil })
		gotErr := EntitiesAt([]byte(page), func(rest []byte) (int, error) {
			s := wire.Scanner{Data: rest}
			err := s.Skip()
			if err == nil {
				got = append(got, string(rest[:s.Pos]))
			}
			return s.Pos, err
		})
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || wantErr == nil && strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("EntitiesAt(%.80s) = %.80q, %v; want %.80q, %v", page, got, gotErr, want, wantErr)
		}
	}
}
