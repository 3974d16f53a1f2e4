package retry

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/tablekit/tablekit/devtools/azerrors"
)

// nonRetriable mimics azcore's bodyDownloadError: marked, and unwrappable.
type nonRetriable struct{ error }

func (nonRetriable) NonRetriable()   {}
func (e nonRetriable) Unwrap() error { return e.error }

func TestIsRetryableStatus(t *testing.T) {
	const entity = "/devstoreaccount1/t1(PartitionKey='p',RowKey='r')"
	tests := []struct {
		status       int
		code, method string
		path         string
		want         bool
	}{
		{408, "", "PUT", entity, true},
		{429, "", "PUT", entity, true},
		{500, "OperationTimedOut", "PUT", entity, true},
		{500, "InternalError", "GET", entity, true},
		{502, "", "PUT", entity, true},
		{503, "ServerBusy", "POST", "/devstoreaccount1/t1", true},
		{504, "", "DELETE", entity, true},
		{409, "TableBeingDeleted", "POST", "/devstoreaccount1/Tables", true},
		{409, "TableBeingDeleted", "POST", "/Tables", true},
		// TableBeingDeleted anywhere but a create: not retried.
		{409, "TableBeingDeleted", "POST", "/devstoreaccount1/t1", false},
		{409, "TableBeingDeleted", "PUT", entity, false},
		{409, "TableAlreadyExists", "POST", "/devstoreaccount1/Tables", false},
		{409, "EntityAlreadyExists", "POST", "/devstoreaccount1/t1", false},
		{400, "InvalidInput", "PUT", entity, false},
		{401, "", "PUT", entity, false},
		{403, "AuthorizationFailure", "PUT", entity, false},
		{404, "ResourceNotFound", "GET", entity, false},
		{405, "", "PUT", entity, false},
		{409, "", "PUT", entity, false},
		{411, "", "PUT", entity, false},
		{412, "UpdateConditionNotSatisfied", "PUT", entity, false},
		{413, "RequestBodyTooLarge", "POST", "/devstoreaccount1/$batch", false},
		{415, "", "PUT", entity, false},
		{416, "", "GET", entity, false},
		{501, "NotImplemented", "PUT", entity, false},
		{505, "", "PUT", entity, false},
		{304, "", "GET", entity, false},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%d_%s_%s", tc.status, tc.code, tc.method), func(t *testing.T) {
			err := azerrors.Response(tc.status, tc.code, tc.method, tc.path, nil)
			if got := IsRetryable(err); got != tc.want {
				t.Errorf("IsRetryable(%d %s %s %s): got %v, want %v", tc.status, tc.code, tc.method, tc.path, got, tc.want)
			}
			if got := IsRetryable(fmt.Errorf("wrapped: %w", err)); got != tc.want {
				t.Errorf("IsRetryable(wrapped): got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestIsRetryableTransport(t *testing.T) {
	tests := []struct {
		name       string
		err        error
		want, conn bool
	}{
		{"reset", azerrors.Conn("read", syscall.ECONNRESET), true, true},
		{"refused", azerrors.Conn("dial", syscall.ECONNREFUSED), true, true},
		{"aborted", azerrors.Conn("read", syscall.ECONNABORTED), true, true},
		{"broken pipe", azerrors.Conn("write", syscall.EPIPE), true, true},
		{"EOF", &url.Error{Op: "Post", URL: "http://x/t", Err: io.EOF}, true, true},
		{"unexpected EOF", fmt.Errorf("reading body: %w", io.ErrUnexpectedEOF), true, true},
		{"idle closed", &url.Error{Op: "Put", URL: "http://x/t", Err: errors.New("http: server closed idle connection")}, true, true},
		{"dial timeout", azerrors.Conn("dial", syscall.ETIMEDOUT), true, false},
		{"host unreachable", azerrors.Conn("dial", syscall.EHOSTUNREACH), true, false},
		{"i/o timeout", &url.Error{Op: "Get", URL: "http://x/t", Err: &net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded}}, true, false},
		{"dns", &url.Error{Op: "Get", URL: "http://x/t", Err: &net.OpError{Op: "dial", Err: &net.DNSError{Err: "no such host", Name: "x", IsNotFound: true}}}, true, false},
		{"canceled", &url.Error{Op: "Get", URL: "http://x/t", Err: context.Canceled}, false, false},
		{"deadline", &url.Error{Op: "Get", URL: "http://x/t", Err: context.DeadlineExceeded}, false, false},
		{"bare canceled", context.Canceled, false, false},
		{"joined deadline", errors.Join(errors.New("x"), context.DeadlineExceeded), false, false},
		{"non-retriable marker", nonRetriable{azerrors.Conn("read", syscall.ECONNRESET)}, false, true},
		{"certificate", &url.Error{Op: "Get", URL: "https://x/t", Err: x509.UnknownAuthorityError{}}, false, false},
		{"plain", errors.New("invalid entity"), false, false},
		{"nil", nil, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := IsRetryable(tc.err); got != tc.want {
				t.Errorf("IsRetryable(%v): got %v, want %v", tc.err, got, tc.want)
			}
			if tc.err == nil {
				return
			}
			if got := isConnError(tc.err); got != tc.conn {
				t.Errorf("isConnError(%v): got %v, want %v", tc.err, got, tc.conn)
			}
		})
	}
}

// TestResponseHeaderTimeoutIsRetryable uses a real net/http timeout: it
// reports itself as context.DeadlineExceeded through errors.Is although no
// context ended, and must still be retried.
func TestResponseHeaderTimeoutIsRetryable(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-release }))
	defer srv.Close()
	defer close(release)
	tr := &http.Transport{ResponseHeaderTimeout: 20 * time.Millisecond}
	defer tr.CloseIdleConnections()
	_, err := (&http.Client{Transport: tr}).Get(srv.URL)
	if err == nil {
		t.Fatal("got no error, want a response header timeout")
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Logf("note: %v no longer matches context.DeadlineExceeded", err)
	}
	if !IsRetryable(err) {
		t.Errorf("IsRetryable(%v): got false, want true", err)
	}
}
