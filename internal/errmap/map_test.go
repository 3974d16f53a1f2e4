package errmap

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"syscall"
	"testing"

	"github.com/tablekit/tablekit/devtools/azerrors"
)

func TestMayHaveReached(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"reset", azerrors.Conn("read", syscall.ECONNRESET), true},
		{"EOF", &url.Error{Op: "Post", URL: "http://x/t", Err: io.EOF}, true},
		{"read timeout", azerrors.Conn("read", syscall.ETIMEDOUT), true},
		{"canceled in flight", &url.Error{Op: "Post", URL: "http://x/t", Err: context.Canceled}, true},
		{"unknown error", errors.New("something else"), true},
		{"refused", azerrors.Conn("dial", syscall.ECONNREFUSED), false},
		{"dial timeout", azerrors.Conn("dial", syscall.ETIMEDOUT), false},
		{"dns", &net.DNSError{Err: "no such host", IsNotFound: true}, false},
		{"error response", azerrors.Response(503, "ServerBusy", "POST", "/devstoreaccount1/t", nil), false},
		{"wrapped error response", fmt.Errorf("add: %w", azerrors.Response(409, "EntityAlreadyExists", "POST", "/t", nil)), false},
		{"nil", nil, false},
	}
	for _, tc := range tests {
		if got := MayHaveReached(tc.err); got != tc.want {
			t.Errorf("MayHaveReached(%s): got %v, want %v", tc.name, got, tc.want)
		}
	}
}
