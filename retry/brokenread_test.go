package retry

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/tablekit/tablekit/internal/errmap"
	"github.com/tablekit/tablekit/internal/opdesc"
)

// TestBrokenResponseRead: a request whose caller reads its reply
// (opdesc.Desc.Read) has its body read by the policy and handed to the
// caller once, in place of the whole-JSON check: its reading failing on a
// body that is not whole JSON is a reply broken in transit; its failing on
// whole JSON is the caller's to report; a body cut short is broken before
// any reading, whatever its type; a body that is not JSON is left to the
// caller.
func TestBrokenResponseRead(t *testing.T) {
	const page = `{"value":[{"PartitionKey":"p","RowKey":"r"}]}`
	errType := errors.New("an entity the type cannot hold")
	const jsonType = "application/json;odata=minimalmetadata;streaming=true;charset=utf-8"
	tests := []struct {
		name        string
		body        io.Reader
		contentType string
		readErr     error
		wantReads   int
		wantBroken  bool
	}{
		{"read", strings.NewReader(page), jsonType, nil, 1, false},
		{"whole JSON the caller cannot use", strings.NewReader(page), jsonType, errType, 1, false},
		{"garbled", strings.NewReader(page[:20] + "\x00garbled" + page[28:]), jsonType, errType, 1, true},
		{"cut short", io.MultiReader(strings.NewReader(page[:20]), iotest.ErrReader(io.ErrUnexpectedEOF)), jsonType, nil, 0, true},
		{"not JSON", strings.NewReader("<html></html>"), "text/html", nil, 0, false},
		{"not JSON, cut short", io.MultiReader(strings.NewReader("<html>"), iotest.ErrReader(io.ErrUnexpectedEOF)), "text/html", nil, 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			reads := 0
			var got []byte
			d := opdesc.Desc{Kind: opdesc.QueryPage, Read: func(body []byte) error {
				reads++
				got = body
				return tc.readErr
			}}
			req, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1/t()", nil)
			resp := &http.Response{StatusCode: http.StatusOK, Body: io.NopCloser(tc.body), ContentLength: int64(len(page)),
				Header: http.Header{"Content-Type": {tc.contentType}}}
			err := brokenResponse(req, d, resp, nil)
			var b *errmap.Broken
			if errors.As(err, &b) != tc.wantBroken {
				t.Errorf("got %v, want broken %v", err, tc.wantBroken)
			}
			if !tc.wantBroken && err != nil {
				t.Errorf("got %v, want nil: the caller reports its own failure", err)
			}
			if reads != tc.wantReads {
				t.Errorf("reads: got %d, want %d", reads, tc.wantReads)
			}
			if reads > 0 && len(got) != len(page) {
				t.Errorf("read %d bytes, want %d", len(got), len(page))
			}
		})
	}
}
