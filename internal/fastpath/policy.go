package fastpath

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"

	"github.com/tablekit/tablekit/internal/reqshape"
)

// ErrNotSwapped fails a request whose Holder the policy could not use: a
// placeholder must never reach the service in place of the real bytes.
var ErrNotSwapped = errors.New("tablekit fast path: request body not swapped")

// What aztables decodes in place of the kept bodies: cheap and empty.
var (
	emptyPage   = []byte(`{"value":[]}`)
	emptyEntity = []byte(`{}`)
	// A 202 reply of one 204 part, which aztables' reply parser accepts.
	emptyReply = []byte("--batchresponse_0\r\nContent-Type: multipart/mixed; boundary=changesetresponse_0\r\n\r\n" +
		"--changesetresponse_0\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n" +
		"HTTP/1.1 204 No Content\r\n\r\n\r\n--changesetresponse_0--\r\n--batchresponse_0--\r\n")
)

// Policy does the swaps of the Holder in a request's context; without one
// it only passes the request on. Install it before the retry policy.
type Policy struct{}

// Do implements policy.Policy.
func (Policy) Do(req *policy.Request) (*http.Response, error) {
	h := from(req.Raw().Context())
	if h == nil {
		return req.Next()
	}
	r := req.Raw()
	switch h.Kind {
	case Write, Batch:
		if err := h.swapBody(req); err != nil {
			return nil, err
		}
		count(r.Context())
	}
	resp, err := req.Next()
	if err != nil || resp == nil {
		return resp, err
	}
	switch {
	case h.Kind == Read && r.Method == http.MethodGet && resp.StatusCode == http.StatusOK:
		return h.keep(r, resp, emptyPage)
	case h.Kind == Get && r.Method == http.MethodGet && resp.StatusCode == http.StatusOK:
		return h.keep(r, resp, emptyEntity)
	case h.Kind == Batch && resp.StatusCode == http.StatusAccepted:
		return h.keep(r, resp, emptyReply)
	}
	return resp, nil
}

// swapBody puts Out in the place of aztables' body, refusing requests that
// are not the kind the Holder is for.
func (h *Holder) swapBody(req *policy.Request) error {
	r := req.Raw()
	ok := false
	switch h.Kind {
	case Write:
		ok = reqshape.EntityInsert(r) || reqshape.EntityWrite(r)
	case Batch:
		ok = r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/$batch")
	}
	if !ok || len(h.Out) == 0 {
		return fmt.Errorf("%w: %s %s", ErrNotSwapped, r.Method, r.URL.Path)
	}
	ct := h.ContentType
	if ct == "" {
		ct = r.Header.Get("Content-Type")
	}
	if err := req.SetBody(streaming.NopCloser(bytes.NewReader(h.Out)), ct); err != nil {
		return fmt.Errorf("%w: %w", ErrNotSwapped, err)
	}
	h.Swapped = true
	return nil
}

// keep takes the downloaded body (azcore's buffer, not a copy) and gives
// aztables stand-in to decode.
func (h *Holder) keep(r *http.Request, resp *http.Response, standIn []byte) (*http.Response, error) {
	body, err := runtime.Payload(resp)
	if err != nil {
		return resp, err
	}
	h.In, h.Resp, h.Swapped = body, resp, true
	resp.Body = io.NopCloser(bytes.NewReader(standIn))
	resp.ContentLength = int64(len(standIn))
	count(r.Context())
	return resp, nil
}
