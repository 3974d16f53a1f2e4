package sharedkey

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
)

// Policy returns the pipeline policy that signs every request with Shared
// Key Lite for the Table service: x-ms-date (set to now unless the request
// has one) and the canonicalized resource, HMAC-SHA256 under the key, in
// "Authorization: SharedKeyLite <account>:<signature>". It signs what
// aztables' SharedKeyCredential signs, byte for byte. Install it as a
// per-retry policy, so that every attempt is signed again.
func (k *Key) Policy() policy.Policy { return litePolicy{k} }

type litePolicy struct{ key *Key }

func (p litePolicy) Do(req *policy.Request) (*http.Response, error) {
	if err := p.key.SignLite(req.Raw()); err != nil {
		return nil, err
	}
	return req.Next()
}

// SignLite sets the x-ms-date (unless r has one) and Authorization headers
// of r for Shared Key Lite. It fails only on a query string that does not
// parse.
func (k *Key) SignLite(r *http.Request) error {
	date := r.Header.Get("x-ms-date")
	if date == "" {
		date = time.Now().UTC().Format(http.TimeFormat)
		r.Header.Set("x-ms-date", date)
	}
	resource, err := CanonicalizedResource(k.account, r.URL)
	if err != nil {
		return err
	}
	r.Header.Set("Authorization", "SharedKeyLite "+k.account+":"+k.Sign(date+"\n"+resource))
	return nil
}

// CanonicalizedResource is the resource a Shared Key Lite signature of the
// Table service covers: "/" + account + the URL's escaped path ("/" when
// empty), and "?comp=" + the comp parameter when the query has one. It
// always names the account the key belongs to: a request to the secondary
// (<account>-secondary) is signed as the primary's, as the service documents
// for Shared Key, so table's location policy redirects a read after it was
// signed.
func CanonicalizedResource(account string, u *url.URL) (string, error) {
	var b strings.Builder
	b.WriteString("/")
	b.WriteString(account)
	if p := u.EscapedPath(); p != "" {
		b.WriteString(p)
	} else {
		b.WriteString("/")
	}
	if u.RawQuery != "" {
		q, err := url.ParseQuery(u.RawQuery)
		if err != nil {
			return "", errQuery
		}
		if comp, ok := q["comp"]; ok {
			b.WriteString("?comp=")
			b.WriteString(comp[0])
		}
	}
	return b.String(), nil
}

// errQuery is a request whose query cannot be read for signing. It does
// not repeat the query, which may hold a SAS signature.
var errQuery = errors.New("sharedkey: the request's query string does not parse")
