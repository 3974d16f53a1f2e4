package errmap

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"syscall"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
)

func respErr(status int, code, method, path string) error {
	u, _ := url.Parse("http://127.0.0.1:10002" + path)
	resp := &http.Response{
		StatusCode: status,
		Status:     fmt.Sprintf("%d %s", status, http.StatusText(status)),
		Header:     http.Header{},
		Body:       http.NoBody,
		Request:    &http.Request{Method: method, URL: u, Header: http.Header{}},
	}
	return runtime.NewResponseErrorWithErrorCode(resp, code)
}

func connErr(op string, errno syscall.Errno) error {
	return &url.Error{Op: "Put", URL: "http://127.0.0.1/t", Err: &net.OpError{Op: op, Net: "tcp", Err: os.NewSyscallError(op, errno)}}
}

func TestMayHaveReached(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"reset", connErr("read", syscall.ECONNRESET), true},
		{"EOF", &url.Error{Op: "Post", URL: "http://x/t", Err: io.EOF}, true},
		{"read timeout", connErr("read", syscall.ETIMEDOUT), true},
		{"canceled in flight", &url.Error{Op: "Post", URL: "http://x/t", Err: context.Canceled}, true},
		{"unknown error", errors.New("something else"), true},
		{"refused", connErr("dial", syscall.ECONNREFUSED), false},
		{"dial timeout", connErr("dial", syscall.ETIMEDOUT), false},
		{"dns", &net.DNSError{Err: "no such host", IsNotFound: true}, false},
		{"error response", respErr(503, "ServerBusy", "POST", "/devstoreaccount1/t"), false},
		{"wrapped error response", fmt.Errorf("add: %w", respErr(409, "EntityAlreadyExists", "POST", "/t")), false},
		{"nil", nil, false},
	}
	for _, tc := range tests {
		if got := MayHaveReached(tc.err); got != tc.want {
			t.Errorf("MayHaveReached(%s): got %v, want %v", tc.name, got, tc.want)
		}
	}
}
