package retry

import (
	"errors"
	"mime"
	"net/http"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"

	"github.com/tablekit/tablekit/internal/errmap"
	"github.com/tablekit/tablekit/internal/wire"
)

// errNotJSON is the cause of a read whose body does not parse.
var errNotJSON = errors.New("body is not valid JSON")

// isBroken reports an error that is, or wraps, a reply broken in transit.
func isBroken(err error) bool {
	var b *errmap.Broken
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
		return &errmap.Broken{Method: req.Method, StatusCode: resp.StatusCode, Err: wire.RedactURLError(err)}
	}
	if req.Method != http.MethodGet || resp.StatusCode < 200 || resp.StatusCode > 299 || !isJSON(resp.Header.Get("Content-Type")) {
		return nil
	}
	body, perr := runtime.Payload(resp)
	if perr != nil {
		return &errmap.Broken{Method: req.Method, StatusCode: resp.StatusCode, Err: wire.RedactURLError(perr)}
	}
	if !validJSON(body) {
		return &errmap.Broken{Method: req.Method, StatusCode: resp.StatusCode, Err: errNotJSON}
	}
	return nil
}

// isJSON reports a JSON media type, such as the service's
// application/json;odata=minimalmetadata;streaming=true;charset=utf-8.
func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}
