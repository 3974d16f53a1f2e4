package azerrors_test

import (
	"errors"
	"net/http"
	"syscall"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"

	"github.com/tablekit/tablekit/devtools/azerrors"
)

func TestResponse(t *testing.T) {
	err := azerrors.Response(429, "TooManyRequests", http.MethodPut, "/t1", http.Header{"X-Ms-Retry-After-Ms": {"20"}})
	var re *azcore.ResponseError
	if !errors.As(err, &re) {
		t.Fatalf("got %T, want *azcore.ResponseError", err)
	}
	if got, want := re.StatusCode, 429; got != want {
		t.Errorf("status: got %d, want %d", got, want)
	}
	if got, want := re.ErrorCode, "TooManyRequests"; got != want {
		t.Errorf("code: got %q, want %q", got, want)
	}
	if got, want := re.RawResponse.Header.Get("x-ms-retry-after-ms"), "20"; got != want {
		t.Errorf("header: got %q, want %q", got, want)
	}
	if got, want := re.RawResponse.Request.Method, http.MethodPut; got != want {
		t.Errorf("method: got %q, want %q", got, want)
	}
}

func TestConn(t *testing.T) {
	if err := azerrors.Conn("read", syscall.ECONNRESET); !errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("got %v, want it to match ECONNRESET", err)
	}
}
