package sas

import (
	"net/url"
	"slices"
	"strings"
)

// TableURL joins a service endpoint, a table name and a signed token into
// the URL a client uses (aztables.NewClientWithNoCredential takes it, and so
// does table.NewServiceWithSAS).
func TableURL(endpoint, table string, token url.Values) (string, error) {
	u, err := url.Parse(endpoint)
	if err != nil {
		return "", invalid("endpoint", "not a URL") // url's errors quote the input
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
