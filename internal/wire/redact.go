package wire

import (
	"errors"
	"net/url"
	"regexp"
)

// RedactURLError returns err with the query string removed from the URL of
// a top-level *url.Error (net/http puts the full URL, SAS signature
// included, into its errors). The copy wraps the same cause, so errors.Is
// and errors.As behave as before. Other errors are returned unchanged.
func RedactURLError(err error) error {
	var ue *url.Error
	if err == nil || !errors.As(err, &ue) || ue != err {
		return err
	}
	return &url.Error{Op: ue.Op, URL: stripQuery(ue.URL), Err: ue.Err}
}

// stripQuery removes the query string and fragment from a URL.
func stripQuery(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return RedactText(raw)
	}
	u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment, u.User = "", false, "", "", nil
	return u.String()
}

var (
	queryInURL = regexp.MustCompile(`(https?://[^\s"'?#]*)[?#][^\s"']*`)
	sigParam   = regexp.MustCompile(`(?i)(sig=)[^&\s"']*`)
)

// RedactText removes query strings from URLs found in free text and, for
// text that is not a URL, any sig= parameter.
func RedactText(s string) string {
	s = queryInURL.ReplaceAllString(s, "$1")
	return sigParam.ReplaceAllString(s, "${1}REDACTED")
}
