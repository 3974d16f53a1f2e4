package errmap

import (
	"errors"
	"fmt"
	"net"
	"syscall"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/internal/wire"
)

// Map turns an error from aztables, azcore or the retry loop into
// tablekit's model, naming op (opdesc.Desc.Name of the call's
// description): a service's answer becomes a *tablekit.ServiceError, a
// reply broken in transit matches ErrUnavailable. A write of unknown
// outcome comes from the retry loop as a *tablekit.MaybeCommittedError
// already named by the same description; one without a name (retry.Do's)
// gets op. tablekit's own errors and the context's are returned as they
// are; a refused loopback connection also says that no emulator is
// listening there.
func Map(op string, err error) error {
	if err == nil {
		return nil
	}
	var mc *tablekit.MaybeCommittedError
	if errors.As(err, &mc) {
		if mc.Operation != "" {
			return mc
		}
		return &tablekit.MaybeCommittedError{Operation: op, Attempts: mc.Attempts, Err: mc.Err}
	}
	var se *tablekit.ServiceError
	var ve *tablekit.ValidationError
	var de *tablekit.DecodeError
	if errors.As(err, &se) || errors.As(err, &ve) || errors.As(err, &de) || errors.Is(err, tablekit.ErrUnsupported) {
		return err
	}
	if errors.Is(err, tablekit.ErrUnavailable) {
		return emulatorHint(err)
	}
	var b *Broken
	if errors.As(err, &b) {
		return Unavailable(op, 1, err)
	}
	var re *azcore.ResponseError
	if !errors.As(err, &re) {
		return emulatorHint(err)
	}
	return Service(op, -1, re, err)
}

// Service is the *tablekit.ServiceError of a response re, with the code and
// message from its error body when the headers had none. A 403's message is
// left out: it may quote the string the SAS signed.
func Service(op string, index int, re *azcore.ResponseError, err error) *tablekit.ServiceError {
	e := &tablekit.ServiceError{Operation: op, StatusCode: re.StatusCode, Code: re.ErrorCode, Index: index, Err: err}
	if e.Code == "" || e.StatusCode != 403 {
		code, msg := message(re)
		if e.Code == "" {
			e.Code = code
		}
		if e.StatusCode != 403 {
			e.Message = msg
		}
	}
	return e
}

// message reads the code and the first line of the message from the
// response's OData error body (wire.ErrorBody).
func message(re *azcore.ResponseError) (code, msg string) {
	if re.RawResponse == nil {
		return "", ""
	}
	body, err := runtime.Payload(re.RawResponse)
	if err != nil || len(body) == 0 {
		return "", ""
	}
	code, msg = wire.ErrorBody(body)
	return code, wire.FirstLine(msg)
}

// Unavailable is the error of a call that got no usable reply after
// attempts attempts: it matches tablekit.ErrUnavailable and wraps cause.
func Unavailable(op string, attempts int, cause error) error {
	n := "1 attempt"
	if attempts != 1 {
		n = fmt.Sprintf("%d attempts", attempts)
	}
	if op == "" {
		return fmt.Errorf("%w after %s: %w", tablekit.ErrUnavailable, n, cause)
	}
	return fmt.Errorf("%w (%s, after %s): %w", tablekit.ErrUnavailable, op, n, cause)
}

// startEmulator is how the hint tells a user to get an emulator on a port.
const startEmulator = "start one with `npx azurite-table` (or `make demo` in tablekit's repository, " +
	"or `docker run -p 10002:10002 mcr.microsoft.com/azure-storage/azurite azurite-table --tableHost 0.0.0.0`)"

// emulatorHint adds what to do when a loopback endpoint refuses the
// connection: that is nearly always an emulator that is not running, and
// "connection refused" alone does not say so. Other errors are unchanged.
func emulatorHint(err error) error {
	var oe *net.OpError
	if !errors.As(err, &oe) || oe.Op != "dial" || oe.Addr == nil || !errors.Is(err, syscall.ECONNREFUSED) {
		return err
	}
	host, _, splitErr := net.SplitHostPort(oe.Addr.String())
	if splitErr != nil {
		return err
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return err
	}
	return fmt.Errorf("%w; no emulator is listening on %s: %s", err, oe.Addr, startEmulator)
}

// MayHaveReached reports whether a failed attempt may have reached the
// service, and so may have been applied. A response means the service
// answered; a refused connection or a failed DNS lookup means nothing was
// sent. Every other error, nil excepted, may have reached it.
func MayHaveReached(err error) bool {
	var re *azcore.ResponseError
	if err == nil || errors.As(err, &re) || errors.Is(err, syscall.ECONNREFUSED) {
		return false
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return false
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return false
	}
	return true
}
