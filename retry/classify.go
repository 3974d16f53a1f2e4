package retry

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"

	"github.com/tablekit/tablekit/internal/opdesc"
)

// codeTableBeingDeleted is the service's error code the classifier looks at.
const codeTableBeingDeleted = "TableBeingDeleted"

// IsRetryable reports whether another attempt of the failed request can
// succeed: the default classifier of a Policy (the package documentation
// lists what it retries).
func IsRetryable(err error) bool {
	if err == nil || isContextError(err) {
		return false
	}
	if isBroken(err) {
		return true
	}
	if isNonRetriable(err) {
		return false
	}
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		return statusRetryable(re)
	}
	return isTransportError(err)
}

// statusRetryable classifies an HTTP response that failed.
func statusRetryable(re *azcore.ResponseError) bool {
	switch re.StatusCode {
	case http.StatusRequestTimeout, http.StatusTooManyRequests,
		http.StatusInternalServerError, http.StatusBadGateway,
		http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	case http.StatusConflict:
		// A table create goes through aztables (a management call): its
		// shape is all an error carries.
		return re.ErrorCode == codeTableBeingDeleted && opdesc.Infer(requestOf(re)).Kind == opdesc.TableCreate
	}
	return false
}

// isContextError reports an error that is, or wraps, the context package's
// own Canceled or DeadlineExceeded values. It compares identities rather than
// using errors.Is, because net/http's response-header timeout reports
// itself as DeadlineExceeded through an Is method although no context
// expired: that one is a network timeout and worth a retry.
func isContextError(err error) bool {
	found := false
	walk(err, func(e error) bool {
		if e == context.Canceled || e == context.DeadlineExceeded {
			found = true
		}
		return !found
	})
	return found
}

// isNonRetriable reports errors that azcore marks with a NonRetriable method.
func isNonRetriable(err error) bool {
	var nr interface{ NonRetriable() }
	return errors.As(err, &nr)
}

// isTransportError reports a failure to exchange bytes with the server.
func isTransportError(err error) bool {
	if isConnError(err) {
		return true
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	for _, errno := range []syscall.Errno{syscall.ETIMEDOUT, syscall.EHOSTUNREACH, syscall.ENETUNREACH, syscall.ENETDOWN} {
		if errors.Is(err, errno) {
			return true
		}
	}
	var op *net.OpError
	if errors.As(err, &op) {
		switch op.Op {
		case "dial", "read", "write":
			return true
		}
	}
	return false
}

// isConnError reports a connection that broke or could not be opened: the
// kind of failure the checklist retries once without waiting.
func isConnError(err error) bool {
	for _, target := range []error{
		syscall.ECONNRESET, syscall.ECONNREFUSED, syscall.ECONNABORTED, syscall.EPIPE,
		io.EOF, io.ErrUnexpectedEOF, net.ErrClosed,
	} {
		if errors.Is(err, target) {
			return true
		}
	}
	// net/http reports these without an exported value to compare with.
	msg := err.Error()
	return strings.Contains(msg, "server closed idle connection") ||
		strings.Contains(msg, "transport connection broken")
}

// hasResponse reports an error that carries an HTTP response.
func hasResponse(err error) bool {
	var re *azcore.ResponseError
	return errors.As(err, &re)
}

// requestOf returns the request that produced a response error, if known.
func requestOf(re *azcore.ResponseError) *http.Request {
	if re.RawResponse == nil {
		return nil
	}
	return re.RawResponse.Request
}

// walk visits err and everything it wraps, depth first, while visit
// returns true.
func walk(err error, visit func(error) bool) bool {
	if err == nil {
		return true
	}
	if !visit(err) {
		return false
	}
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		return walk(u.Unwrap(), visit)
	case interface{ Unwrap() []error }:
		for _, e := range u.Unwrap() {
			if !walk(e, visit) {
				return false
			}
		}
	}
	return true
}
