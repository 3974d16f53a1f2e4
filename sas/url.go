package sas

import (
	"net/url"
	"slices"
	"strings"
)

// TableURL joins a service endpoint, a table name and a signed token into
// the URL a client uses, e.g.
// https://acct.table.core.windows.net/orders?se=...&sig=... or, for Azurite,
// http://127.0.0.1:10002/devstoreaccount1/orders?.... It puts exactly one
// "/" between the endpoint path and the table (aztables omits it) and works
// for table and account tokens alike.
//
// The result is ready for aztables.NewClientWithNoCredential. It is an error
// (wrapping ErrInvalid) to pass an endpoint with a query or fragment, a
// token without a signature, or an https-only token with an http endpoint,
// which the service would refuse.
func TableURL(endpoint, table string, token url.Values) (string, error) {
	u, err := url.Parse(endpoint)
	if err != nil {
		return "", invalidErr("endpoint", "not a URL", err)
	}
	if (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return "", invalid("endpoint", "must be an absolute http or https URL")
	}
	if u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", invalid("endpoint", "must not carry a query, fragment or user info")
	}
	if err := checkTableName("table", table); err != nil {
		return "", err
	}
	if token.Get("sig") == "" {
		return "", invalid("token", "has no signature (sig)")
	}
	if spr := token.Get("spr"); u.Scheme == "http" && spr != "" && !slices.Contains(strings.Split(spr, ","), "http") {
		return "", invalid("endpoint", "is http but the token allows https only")
	}
	u.Path = strings.TrimRight(u.Path, "/") + "/" + table
	u.RawPath = ""
	u.RawQuery = token.Encode()
	return u.String(), nil
}
