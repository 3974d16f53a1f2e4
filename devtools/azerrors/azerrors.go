// Package azerrors builds the errors that azcore and net/http return, for
// tests that classify errors without a service: an *azcore.ResponseError
// of a status and error code, the reply behind it, and a failed
// connection.
package azerrors

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"syscall"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
)

// Response is the *azcore.ResponseError that aztables returns when a
// request of method to path is answered status with the service's error
// code (and its JSON error body); header may be nil.
func Response(status int, code, method, path string, header http.Header) error {
	u, _ := url.Parse("http://127.0.0.1:10002" + path)
	return runtime.NewResponseErrorWithErrorCode(Reply(&http.Request{Method: method, URL: u, Header: http.Header{}}, status, code, header), code)
}

// Reply is the service's answer status to req with error code code (none
// when ""), as JSON, with header's fields added.
func Reply(req *http.Request, status int, code string, header http.Header) *http.Response {
	h := http.Header{}
	for k, v := range header {
		h[k] = v
	}
	var body []byte
	if code != "" {
		body = fmt.Appendf(nil, `{"odata.error":{"code":%q,"message":{"lang":"en-US","value":"fake %s"}}}`, code, code)
		h.Set("Content-Type", "application/json")
	}
	return &http.Response{
		StatusCode:    status,
		Status:        fmt.Sprintf("%d %s", status, http.StatusText(status)),
		Header:        h,
		Body:          io.NopCloser(bytes.NewReader(body)),
		ContentLength: int64(len(body)),
		Request:       req,
	}
}

// Conn is the error net/http returns when a connection's op (dial, read,
// write) fails with errno.
func Conn(op string, errno syscall.Errno) error {
	return &url.Error{Op: "Put", URL: "http://127.0.0.1/t", Err: &net.OpError{Op: op, Net: "tcp", Err: os.NewSyscallError(op, errno)}}
}
