package batch

import (
	"net/http"

	"github.com/tablekit/tablekit/internal/errmap"
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
	return &errmap.Broken{Method: http.MethodPost, StatusCode: resp.StatusCode, Err: cause}
}
