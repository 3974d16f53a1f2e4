package batch

import (
	"net/http"

	"github.com/tablekit/tablekit/retry"
)

// brokenBody reports a 202 whose body did not arrive whole. azcore's body
// download policy read it first and closed it, so its error (aztErr, e.g.
// an unexpected EOF) is the real cause; reading the body again only says
// that it is closed (readErr).
func brokenBody(resp *http.Response, aztErr, readErr error) error {
	cause := readErr
	if aztErr != nil {
		cause = aztErr
	}
	return &retry.BrokenResponseError{Method: http.MethodPost, StatusCode: resp.StatusCode, Err: cause}
}

// asBroken is the transport failure behind an unreadable reply: a multipart
// body the parser refuses is a reply broken in transit, which retry
// classifies as retryable and possibly committed.
func (e *ReplyError) asBroken() *retry.BrokenResponseError {
	return &retry.BrokenResponseError{Method: http.MethodPost, StatusCode: e.StatusCode, Err: e.Err}
}
