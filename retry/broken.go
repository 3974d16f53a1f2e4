package retry

import (
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"

	"github.com/tablekit/tablekit/internal/wire"
)

// ErrBrokenResponse is matched (with errors.Is) by a response whose status
// and headers arrived but whose body did not arrive whole (the connection
// broke while it was read) or, for a successful read, is not the JSON its
// Content-Type promises. The error is a [*BrokenResponseError]. A read is
// retried like a broken connection; a write too, and because it may have
// reached the service, a retry that then collides with it is reported as
// [ErrAmbiguous].
var ErrBrokenResponse = errors.New("retry: response broken in transit")

// errNotJSON is the cause of a read whose body does not parse.
var errNotJSON = errors.New("body is not valid JSON")

// BrokenResponseError reports a response broken in transit; see
// [ErrBrokenResponse].
type BrokenResponseError struct {
	// Method is the request's HTTP method.
	Method string
	// StatusCode is the status that arrived with the broken body.
	StatusCode int
	// Err is the cause: the error reading the body (io.ErrUnexpectedEOF for a
	// body cut short) or a JSON syntax error.
	Err error
}

// Error names the request's method and the status, never its URL.
func (e *BrokenResponseError) Error() string {
	return fmt.Sprintf("%s (%s answered %d): %v", ErrBrokenResponse, e.Method, e.StatusCode, e.Err)
}

// Is makes errors.Is(err, ErrBrokenResponse) true.
func (e *BrokenResponseError) Is(target error) bool { return target == ErrBrokenResponse }

// Unwrap returns the cause.
func (e *BrokenResponseError) Unwrap() error { return e.Err }

// isBroken reports an error that is, or wraps, a *BrokenResponseError.
func isBroken(err error) bool {
	var b *BrokenResponseError
	return errors.As(err, &b)
}

// brokenResponse checks what the rest of the pipeline returned for req. azcore's
// body download policy (after this one) reports a body cut short as an
// error next to the response; that is a transport failure, not an answer.
// A successful GET is also checked for a whole JSON body when its
// Content-Type says JSON: aztables would otherwise fail to unmarshal it
// with an error nobody retries. validJSON scans the already-buffered body
// once with the shared JSON scanner and accepts what json.Valid accepts; it costs
// a small fraction of any decoding of the body.
func brokenResponse(req *http.Request, resp *http.Response, err error) error {
	if resp == nil {
		return nil
	}
	if err != nil {
		if !isTransportError(err) {
			return nil
		}
		return &BrokenResponseError{Method: req.Method, StatusCode: resp.StatusCode, Err: wire.RedactURLError(err)}
	}
	if req.Method != http.MethodGet || resp.StatusCode < 200 || resp.StatusCode > 299 || !isJSON(resp.Header.Get("Content-Type")) {
		return nil
	}
	body, perr := runtime.Payload(resp)
	if perr != nil {
		return &BrokenResponseError{Method: req.Method, StatusCode: resp.StatusCode, Err: wire.RedactURLError(perr)}
	}
	if !validJSON(body) {
		return &BrokenResponseError{Method: req.Method, StatusCode: resp.StatusCode, Err: errNotJSON}
	}
	return nil
}

// isJSON reports a JSON media type, such as the service's
// application/json;odata=minimalmetadata;streaming=true;charset=utf-8.
func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}
