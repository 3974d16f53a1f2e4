package retry

import (
	"errors"
	"mime"
	"net/http"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"

	"github.com/tablekit/tablekit/internal/errmap"
	"github.com/tablekit/tablekit/internal/opdesc"
	"github.com/tablekit/tablekit/internal/payload"
	"github.com/tablekit/tablekit/internal/wire"
)

// errNotJSON is the cause of a read whose body does not parse.
var errNotJSON = errors.New("body is not valid JSON")

// isBroken reports an error that is, or wraps, a reply broken in transit.
func isBroken(err error) bool {
	var b *errmap.Broken
	return errors.As(err, &b)
}

// brokenResponse checks what the rest of the pipeline returned for req, an
// attempt of the operation d. azcore's body download policy (after this
// one) reports a body cut short as an error next to the response; that is
// a transport failure, not an answer. A successful GET is also checked for
// a whole JSON body when its Content-Type says JSON: aztables would
// otherwise fail to unmarshal it with an error nobody retries. validJSON
// scans the already-buffered body once with the shared JSON scanner and
// accepts what json.Valid accepts. A request whose caller reads the body
// itself (opdesc.Desc.Read) is downloaded here (package payload) and read
// by its caller instead, whose decoding parses every byte: the body is
// scanned by validJSON only when that reading fails, to tell a broken
// reply from one the caller cannot use.
func brokenResponse(req *http.Request, d opdesc.Desc, resp *http.Response, err error) error {
	if resp == nil {
		return nil
	}
	if err != nil {
		if !isTransportError(err) {
			return nil
		}
		return &errmap.Broken{Method: req.Method, StatusCode: resp.StatusCode, Err: wire.RedactURLError(err)}
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil
	}
	json := isJSON(resp.Header.Get("Content-Type"))
	if d.Read == nil && (req.Method != http.MethodGet || !json) {
		return nil
	}
	var body []byte
	var perr error
	if d.Read != nil {
		// azcore left this body unread: a read cut short is found here.
		body, perr = payload.Read(resp, d.SizeHint)
	} else {
		body, perr = runtime.Payload(resp)
	}
	if perr != nil {
		return &errmap.Broken{Method: req.Method, StatusCode: resp.StatusCode, Err: wire.RedactURLError(perr)}
	}
	if !json || d.Read != nil && d.Read(body) == nil || validJSON(body) {
		return nil // not JSON: the caller's reading says what it cannot use
	}
	return &errmap.Broken{Method: req.Method, StatusCode: resp.StatusCode, Err: errNotJSON}
}

// isJSON reports a JSON media type, such as the service's
// application/json;odata=minimalmetadata;streaming=true;charset=utf-8.
func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}
